/**
 * Service worker of the test extension: the real ChromeBrowserHost and browser tools, exposed
 * to the test through `globalThis.__keel` (evaluated with playwright's worker.evaluate). Stands
 * in for the lead's engine, which calls the same createBrowserTools.
 */
import { createChromeBrowserHost } from '../../../../src/background/chrome-browser-host';
import { createBrowserTools } from '../../../../src/tools/browser';
import type { ToolCallContext } from '../../../../src/tools/types';
import { openGateForTests } from '../../../../src/gatekeeper/receiver';

const { tools, lifecycle } = createBrowserTools(createChromeBrowserHost(), {
  debuggerIdleMs: 4000,
  thumbnails: true,
});
const byName = new Map(tools.map((t) => [t.name, t]));

function context(partial: Partial<ToolCallContext>): ToolCallContext {
  return {
    threadId: 'thread-1',
    runId: 'run-1',
    model: { vision: true },
    gate: openGateForTests(),
    ...partial,
  };
}

function tool(name: string) {
  const t = byName.get(name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

const api = {
  names: () =>
    tools.map((t) => ({ name: t.name, level: t.level, effects: t.effects, recovery: t.recovery })),
  async target(name: string, params: unknown, ctx: Partial<ToolCallContext>) {
    const t = tool(name);
    try {
      const p = t.parameters.parse(params);
      return { ok: true, target: t.resolveTarget ? await t.resolveTarget(p, context(ctx)) : {} };
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  },
  async run(name: string, params: unknown, ctx: Partial<ToolCallContext>) {
    const t = tool(name);
    try {
      const p = t.parameters.parse(params);
      const r = await t.execute(
        'call-1',
        p,
        new AbortController().signal,
        () => undefined,
        context(ctx),
      );
      return { ok: true, content: r.content, details: r.details };
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  },
  runEnded: (runId: string) => lifecycle.runEnded?.(runId, 'thread-1'),
  /** Whether *this extension* has the debugger attached to the tab (Playwright's own CDP session does not count). */
  async ourDebuggerAttached(tabId: number) {
    try {
      await chrome.debugger.sendCommand({ tabId }, 'Runtime.evaluate', { expression: '1' });
      return true;
    } catch {
      return false;
    }
  },
  async sendRaw(tabId: number, message: unknown) {
    try {
      return { ok: true, reply: await chrome.tabs.sendMessage(tabId, message, { frameId: 0 }) };
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  },
};

(globalThis as unknown as { __keel: typeof api }).__keel = api;
