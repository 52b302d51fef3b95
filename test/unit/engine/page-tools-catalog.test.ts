/**
 * Page tools (WebMCP) in a run: the engine asks the run's tab before each model call, the tools
 * a page adds or drops change only the tail of the next request's tool list, a call is judged on
 * the page's origin (a write unless the site's page tools are marked as reads), and page tools
 * never enter a run's fixed catalog.
 */
import { describe, expect, it } from 'vitest';
import { createPageTool, type PageToolHost } from '../../../src/tools/page/page-tool';
import type { ListedTool } from '../../../src/tools/page/page-wire';
import { describeTool, type RegisteredTool } from '../../../src/tools/registry';
import { makeRig } from './harness';

const ORIGIN = 'https://shop.example';

function pageTools(names: string[], ran: string[]): RegisteredTool[] {
  const host: PageToolHost = {
    invoke: async (c) => {
      ran.push(c.pageTool);
      return `ran ${c.pageTool}`;
    },
    target: async () => ({ origin: ORIGIN, url: `${ORIGIN}/`, tabId: 7 }),
  };
  return names.map((name) => {
    const listed: ListedTool = { kind: 'imperative', name, description: `Tool ${name}.` };
    const b = createPageTool(ORIGIN, listed, host);
    if (!b.ok) throw new Error(b.reason);
    return { tool: b.tool, descriptor: describeTool(b.tool) };
  });
}

const toolNames = (r: { tools?: { name: string }[] }) => (r.tools ?? []).map((t) => t.name);

describe('page tools in a run', () => {
  it('join the end of the catalog per model call; a dropped tool leaves only the tail', async () => {
    const ran: string[] = [];
    let offered = ['add_item', 'temporary'];
    const rig = await makeRig({
      activeTabId: 7,
      pageTools: async (tabId) => {
        expect(tabId).toBe(7);
        const tools = pageTools(offered, ran);
        for (const t of tools) rig.registry.register(t.tool, { replace: true });
        return tools.map((t) => rig.registry.get(t.tool.name)!);
      },
      script: [
        () => {
          offered = ['add_item']; // the page unregisters one after the model saw it
          return { toolCalls: [{ name: 'page_shop_example_add_item', args: {} }] };
        },
        { text: 'done' },
      ],
    });
    await rig.store.siteRules.set(ORIGIN, 'ask', Date.now(), true);
    const { runId } = await rig.submit('add it');
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('end');
    expect(ran).toEqual(['add_item']);
    const [first, second] = rig.provider.requests.map(toolNames);
    expect(first.slice(-2)).toEqual(['page_shop_example_add_item', 'page_shop_example_temporary']);
    expect(first.slice(0, -2).some((n) => n.startsWith('page_'))).toBe(false);
    expect(second).toEqual(first.slice(0, -1));
    // The catalog the model saw last is the run's, committed with it.
    const env = (await rig.store.runs.get(runId))!.env!;
    expect(env.toolCatalog.map((e) => e.name).slice(-1)).toEqual(['page_shop_example_add_item']);
    // A page tool never joins a new run's fixed catalog, even if the registry holds it.
    offered = [];
    const next = await rig.submit('again', (await rig.store.runs.get(runId))!.threadId);
    await rig.client.turnComplete(next.runId);
    expect(toolNames(rig.provider.requests.at(-1)!).some((n) => n.startsWith('page_'))).toBe(false);
  });

  it('a page tool is a write of its origin: with no rule it asks, whatever the page claims', async () => {
    const ran: string[] = [];
    const rig = await makeRig({
      activeTabId: 7,
      pageTools: async () => {
        const tools = pageTools(['clear_list'], ran);
        for (const t of tools) rig.registry.register(t.tool, { replace: true });
        return tools.map((t) => rig.registry.get(t.tool.name)!);
      },
      script: [{ toolCalls: [{ name: 'page_shop_example_clear_list', args: {} }] }, { text: 'ok' }],
    });
    const { runId } = await rig.submit('clear');
    const req = await rig.client.waitFor((e) => e.type === 'approval.request');
    expect(req).toMatchObject({
      tool: { name: 'page_shop_example_clear_list', level: 'L1', effects: 'write' },
      target: { origin: ORIGIN },
      reason: 'write',
    });
    await rig.client.ack({
      type: 'approval.response',
      approvalId: (req as { approvalId: string }).approvalId,
      decision: 'deny',
    });
    await rig.client.turnComplete(runId);
    expect(ran).toEqual([]);
  });
});

describe('page tools across a restart', () => {
  it('a call that was running when the worker died pauses for the user (inspect-first), even if the page is gone', async () => {
    const ran: string[] = [];
    let offered = ['submit_order'];
    const discover =
      (rig: { registry: import('../../../src/tools/registry').ToolRegistry }) => async () => {
        const tools = pageTools(offered, ran);
        for (const t of tools) rig.registry.register(t.tool, { replace: true });
        return tools.map((t) => rig.registry.get(t.tool.name)!);
      };
    let die = false;
    const holder: { rig?: Awaited<ReturnType<typeof makeRig>> } = {};
    const rig = await makeRig({
      activeTabId: 7,
      pageTools: () => discover(holder.rig!)(),
      faults: {
        at: (b) => (die && b === 'tool:running' ? new Promise(() => {}) : undefined),
      },
      script: [{ toolCalls: [{ name: 'page_shop_example_submit_order', args: {} }] }],
    });
    holder.rig = rig;
    await rig.store.siteRules.set(ORIGIN, 'allow', Date.now());
    die = true;
    const { runId } = await rig.submit('order');
    for (
      let i = 0;
      i < 100 && (await rig.store.runs.get(runId))?.pendingTool?.phase !== 'executing';
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    expect((await rig.store.runs.get(runId))!.pendingTool?.phase).toBe('executing');
    // The page navigated while Keel was down: it offers nothing now.
    offered = [];
    const after = await rig.reopen({ pageTools: async () => [] });
    for (
      let i = 0;
      i < 200 && (await after.store.runs.get(runId))?.state !== 'paused_uncertain';
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    expect((await after.store.runs.get(runId))!.state).toBe('paused_uncertain');
    expect(ran).toEqual([]);
  });
});
