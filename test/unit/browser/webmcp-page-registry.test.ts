// @vitest-environment happy-dom
/**
 * The page-world WebMCP registry (content-scripts/webmcp/page-registry.ts): the polyfill's
 * registration and unregistration (signal, unregisterTool), `toolchange`, declarative forms, calls
 * through the bridge, and a page that installs its own `document.modelContext`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_KEY } from '../../../src/tools/page/bridge-key';
import type { PageBridge } from '../../../src/tools/page/page-wire';

type Mc = EventTarget & {
  registerTool(tool: unknown, options?: { signal?: AbortSignal }): void;
  unregisterTool(name: string): void;
};
const doc = () => document as unknown as { modelContext: Mc };
let bridge: PageBridge;

beforeAll(async () => {
  await import('../../../content-scripts/webmcp/page-registry');
  bridge = (window as unknown as Record<string, PageBridge>)[BRIDGE_KEY];
});

const names = () => bridge.list().tools.map((t) => `${t.kind}:${t.name}`);

describe('the WebMCP registry in the page', () => {
  it('provides document.modelContext; registers, unregisters by signal or name, fires toolchange', () => {
    const mc = doc().modelContext;
    let changes = 0;
    mc.addEventListener('toolchange', () => changes++);
    const ctl = new AbortController();
    mc.registerTool(
      {
        name: 'search',
        description: 'Search the shop',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        annotations: { readOnlyHint: true },
        execute: ({ q }: { q: string }) => ({ content: [{ type: 'text', text: `found ${q}` }] }),
      },
      { signal: ctl.signal },
    );
    mc.registerTool({ name: 'buy', description: 'Buy', execute: () => 'bought' });
    expect(() => mc.registerTool({ name: 'buy', execute: () => 1 })).toThrow(/registered/);
    expect(() => mc.registerTool({ name: 'x' })).toThrow(TypeError);
    expect(bridge.list().tools[0]).toEqual({
      kind: 'imperative',
      name: 'search',
      description: 'Search the shop',
      inputSchema: '{"type":"object","properties":{"q":{"type":"string"}}}',
      readOnlyHint: true,
    });
    ctl.abort();
    expect(names()).toEqual(['imperative:buy']);
    mc.unregisterTool('buy');
    expect(names()).toEqual([]);
    expect(changes).toBe(4);
  });

  it('runs a call in the page and checks the document it was listed in', async () => {
    doc().modelContext.registerTool({
      name: 'echo',
      description: 'Echo',
      execute: async (input: { say: string }) => ({ content: [{ type: 'text', text: input.say }] }),
    });
    const { docId } = bridge.list();
    expect(await bridge.call(docId, 'echo', { say: 'hi' }, 'c1')).toEqual({ ok: true, text: 'hi' });
    expect(await bridge.call('another-doc', 'echo', {}, 'c2')).toMatchObject({
      ok: false,
      code: 'navigated',
    });
    expect(await bridge.call(docId, 'nope', {}, 'c3')).toMatchObject({ ok: false, code: 'gone' });
    doc().modelContext.registerTool({
      name: 'hang',
      description: 'Never answers',
      execute: () => new Promise(() => {}),
    });
    const hanging = bridge.call(docId, 'hang', {}, 'c4');
    bridge.abort('c4');
    expect(await hanging).toMatchObject({ ok: false, code: 'aborted' });
    doc().modelContext.unregisterTool('echo');
    doc().modelContext.unregisterTool('hang');
  });

  it('lists declarative forms with their controls, and fills and submits them', async () => {
    document.body.innerHTML = `
      <form toolname="subscribe" tooldescription="Subscribe" toolautosubmit>
        <label>Email <input name="email" type="email" required></label>
        <select name="plan"><option value="">Choose</option><option value="weekly">W</option></select>
        <input name="token" type="hidden" value="t">
        <button type="submit">Go</button>
      </form>`;
    const form = document.querySelector('form')!;
    let submitted = '';
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submitted = new FormData(form).get('email') as string;
    });
    expect(bridge.list().tools).toEqual([
      {
        kind: 'form',
        name: 'subscribe',
        description: 'Subscribe',
        autosubmit: true,
        fields: [
          { name: 'email', control: 'email', required: true, description: 'Email' },
          { name: 'plan', control: 'select', required: false, options: ['weekly'] },
        ],
      },
    ]);
    const out = await bridge.call(bridge.list().docId, 'subscribe', { email: 'a@b.c' }, 'c5');
    expect(out).toEqual({ ok: true, text: 'The form "subscribe" was filled and submitted.' });
    expect(submitted).toBe('a@b.c');
    document.body.innerHTML = '';
  });

  it("a page's own modelContext replaces the polyfill and is observed, not broken", () => {
    const seen: string[] = [];
    const own = {
      registerTool(t: { name: string }) {
        seen.push(t.name);
        return 'own result';
      },
    };
    (document as unknown as { modelContext: unknown }).modelContext = own;
    expect(doc().modelContext).toBe(own);
    expect(
      doc().modelContext.registerTool({ name: 'mine', description: 'Mine', execute: () => 1 }),
    ).toBe('own result');
    expect(seen).toEqual(['mine']);
    expect(names()).toEqual(['imperative:mine']);
  });
});
