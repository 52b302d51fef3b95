import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { receiverGate } from '../../../src/gatekeeper/receiver';
import type { GuardRule, ObservedRequest } from '../../../src/tools/browser/guard/guard-policy';
import type { ArmedRequestGuard } from '../../../src/tools/browser/host';
import { guardRequests } from '../../../src/tools/browser/guard/request-guard';
import { tabOpenTool } from '../../../src/tools/browser/tools/tab-open';
import type {
  AgentTool,
  ToolCallContext,
  ToolDescriptor,
  ToolTarget,
} from '../../../src/tools/types';
import { FakeHost } from '../browser/fake-host';

/**
 * The guard around a tool (request-guard.ts) with Chrome replaced by a host that records the
 * rules and reports what the "page" caused: what the rules blocked becomes `held` naming the
 * destination, a blocked site is refused, another extension's block is not Keel's business, and
 * an approved GET navigation opens exactly its address without acting on the page again.
 */
const SHOP = 'https://shop.example';
const VICTIM = 'https://victim.example';

class GuardHost extends FakeHost {
  armed: GuardRule[][] = [];
  disarmed = 0;
  /** What the next action "causes": requests Chrome reports blocked. */
  causes: ObservedRequest[] = [];
  /** What the next action makes Chrome block in new tabs (each with its tabId). */
  newTabCauses: ObservedRequest[] = [];
  /** Tab ids each guard was armed on, and whether it held new tabs. */
  armedOn: Array<{ tabId: number; newTabs: boolean }> = [];
  private live: ObservedRequest[] | undefined;
  private liveNewTabs: ObservedRequest[] | undefined;
  async armRequestGuard(
    tabId: number,
    build: (firstId: number) => GuardRule[],
    opts?: { newTabs?: boolean },
  ): Promise<ArmedRequestGuard> {
    this.armed.push(build(1));
    this.armedOn.push({ tabId, newTabs: opts?.newTabs === true });
    const seen: ObservedRequest[] = [];
    const newTabs: ObservedRequest[] = [];
    this.live = seen;
    if (opts?.newTabs) this.liveNewTabs = newTabs;
    return {
      blocked: () => [...seen],
      newTabs: () => [...newTabs],
      disarm: async () => {
        this.disarmed++;
        if (this.live === seen) this.live = undefined;
        if (this.liveNewTabs === newTabs) this.liveNewTabs = undefined;
      },
    };
  }
  cause() {
    this.live?.push(...this.causes);
    this.liveNewTabs?.push(...this.newTabCauses);
  }
}

function clickLike(host: GuardHost, effects: 'read' | 'write' = 'write') {
  const tool: AgentTool<{ tabId?: number }> & { runs: number } = {
    runs: 0,
    name: 'browser_click',
    label: 'Click',
    description: '',
    parameters: z.object({ tabId: z.number().optional() }),
    level: 'L1',
    effects,
    async resolveTarget(): Promise<ToolTarget> {
      return { tabId: 1, url: `${SHOP}/page`, origin: SHOP };
    },
    async execute() {
      tool.runs++;
      host.cause();
      return { content: [{ type: 'text', text: 'Clicked e1.' }] };
    },
  };
  return tool;
}

const descriptor: ToolDescriptor = {
  name: 'browser_click',
  label: 'Click',
  description: '',
  inputSchema: {},
  level: 'L1',
  effects: 'write',
  recovery: 'never-retry',
  visibility: 'tool',
  trusted: false,
  provenance: 'page',
  binding: { kind: 'local' },
  skipApproval: false,
};

function ctxWith(rules: Array<[string, 'allow' | 'block']>, resume?: unknown): ToolCallContext {
  return {
    threadId: 't',
    runId: 'r',
    tabId: 1,
    model: { vision: false },
    gate: receiverGate({ descriptor, approvalMode: 'ask', rules: new Map(rules), covered: [] }),
    ...(resume !== undefined ? { resume } : {}),
  };
}

const nav = (url: string, method = 'GET'): ObservedRequest => ({
  url,
  method,
  type: 'main_frame',
  frameId: 0,
  initiator: SHOP,
});

function setup() {
  const host = new GuardHost();
  host.addTab({ tabId: 1, url: `${SHOP}/page` });
  const tool = clickLike(host);
  return { host, tool, guarded: guardRequests(tool, host) };
}

const run = (t: AgentTool<{ tabId?: number }>, ctx: ToolCallContext) =>
  t.execute('c1', {}, new AbortController().signal, () => undefined, ctx);

describe('the guard around a write', () => {
  it('a navigation the action caused toward an origin without a rule is held, naming it', async () => {
    const { host, guarded } = setup();
    host.causes = [nav(`${VICTIM}/delete?id=1`)];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held?.target.origin).toBe(VICTIM);
    expect(result.held?.what).toMatch(/take the tab to https:\/\/victim\.example\/delete\?id=1/);
    expect(result.held?.resume).toEqual({ guard: 'open', url: `${VICTIM}/delete?id=1` });
    // The rules were scoped to the tab, allowed the shop, and were removed.
    expect(host.armed[0].every((r) => r.condition.tabIds?.[0] === 1)).toBe(true);
    expect(host.armed[0].some((r) => r.condition.urlFilter === `|${SHOP}/`)).toBe(true);
    expect(host.disarmed).toBe(1);
  });

  it('a held POST has no resume: approving it runs the action again', async () => {
    const { host, guarded } = setup();
    host.causes = [nav(`${VICTIM}/delete`, 'POST')];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held?.what).toMatch(/POST form submission/);
    expect(result.held?.resume).toBeUndefined();
  });

  it('a blocked site is refused, not asked about', async () => {
    const { host, guarded } = setup();
    host.causes = [nav(`${VICTIM}/x`)];
    await expect(
      run(
        guarded,
        ctxWith([
          [SHOP, 'allow'],
          [VICTIM, 'block'],
        ]),
      ),
    ).rejects.toThrow(/Stopped: .*blocked/);
  });

  it("another extension's block of an allowed request or a beacon is not held", async () => {
    const { host, guarded } = setup();
    host.causes = [
      nav(`${SHOP}/next`),
      { url: `${VICTIM}/collect`, method: 'POST', type: 'ping', frameId: 0, initiator: SHOP },
    ];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'Clicked e1.' }]);
  });

  it('a read is not wrapped', async () => {
    const host = new GuardHost();
    const tool = clickLike(host, 'read');
    expect(guardRequests(tool, host)).toBe(tool);
  });

  it('an approved GET navigation opens exactly its address; the re-check sees the pre-hold target', async () => {
    const { host, tool, guarded } = setup();
    host.causes = [nav(`${VICTIM}/x?d=1`)];
    const ctx = ctxWith([[SHOP, 'allow']]);
    const judged = await guarded.resolveTarget!({}, ctx);
    const first = await run(guarded, ctx);
    expect(tool.runs).toBe(1);
    // The page was reloaded meanwhile: the tool itself would now resolve something else.
    const again = await guarded.resolveTarget!({}, ctx);
    expect(again).toEqual(judged);
    const navigated: string[] = [];
    const navigate = host.navigate.bind(host);
    host.navigate = async (tabId, url) => {
      navigated.push(url);
      host.tabs.get(tabId)!.url = url;
      return navigate(tabId, url);
    };
    host.causes = [];
    const second = await run(guarded, ctxWith([[SHOP, 'allow']], first.held?.resume));
    expect(navigated).toEqual([`${VICTIM}/x?d=1`]);
    expect(tool.runs).toBe(1);
    expect(second.held).toBeUndefined();
    expect(second.content[0]).toMatchObject({
      text: expect.stringMatching(/^Opened https:\/\/victim/),
    });
  });
});

describe('tabs the action opens (popups, dropped links)', () => {
  // A new tab is outside the acting tab's rules; the new-tab rule holds its first navigation
  // (seeds 2310871410 and 4000992746 of the attack corpus: a dragged link dropped as a new tab
  // went through a redirect chain to the victim). The guard judges that first address and opens
  // an allowed one again under the new tab's own rules, so the chain is judged too.
  function newTabSetup() {
    const { host, tool, guarded } = setup();
    host.addTab({ tabId: 2, url: `${SHOP}/r?u=x`, status: 'complete' });
    const visited: Array<{ tabId: number; url: string }> = [];
    /** What Chrome blocks when the guard sends a tab somewhere (a redirect's next hop). */
    const hop = { causes: [] as ObservedRequest[] };
    const navigate = host.navigate.bind(host);
    host.navigate = async (tabId: number, url: string) => {
      visited.push({ tabId, url });
      host.causes = hop.causes;
      host.cause();
      return navigate(tabId, url);
    };
    return { host, tool, guarded, visited, hop };
  }
  const newTab = (url: string, tabId = 2, method = 'GET'): ObservedRequest => ({
    ...nav(url, method),
    tabId,
  });

  it('the guard holds new tabs: the acting tab is armed with the new-tab rule', async () => {
    const { host, guarded } = newTabSetup();
    await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(host.armedOn).toEqual([{ tabId: 1, newTabs: true }]);
  });

  it('a new tab toward an origin without a rule is held, naming it, and the tab is closed', async () => {
    const { host, guarded, visited } = newTabSetup();
    host.newTabCauses = [newTab(`${VICTIM}/act?d=S3CR3T`)];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held?.target.origin).toBe(VICTIM);
    expect(result.held?.what).toMatch(/open https:\/\/victim\.example\/act\?d=S3CR3T in a new tab/);
    expect(result.held?.resume).toEqual({ guard: 'open-tab', url: `${VICTIM}/act?d=S3CR3T` });
    expect(host.tabs.has(2)).toBe(false);
    expect(visited).toEqual([]);
  });

  it("an allowed first address is opened again under the new tab's own rules", async () => {
    const { host, guarded, visited } = newTabSetup();
    host.newTabCauses = [newTab(`${SHOP}/product/1`)];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held).toBeUndefined();
    expect(visited).toEqual([{ tabId: 2, url: `${SHOP}/product/1` }]);
    expect(host.armedOn).toEqual([
      { tabId: 1, newTabs: true },
      { tabId: 2, newTabs: false },
    ]);
    expect(host.armed[1].every((r) => r.condition.tabIds?.[0] === 2)).toBe(true);
    expect(result.content.map((c) => (c as { text: string }).text).join(' ')).toMatch(
      /Tab 2 opened https:\/\/shop\.example\/product\/1/,
    );
    expect(host.tabs.has(2)).toBe(true);
  });

  it('an allowed first address that redirects to another site is held there, naming it', async () => {
    const { host, guarded, visited, hop } = newTabSetup();
    host.newTabCauses = [newTab(`${SHOP}/r?u=attacker`)];
    // What the new tab's own rules then block: the hop through the attacker.
    hop.causes = [nav('https://attacker.example/r?u=victim')];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(visited).toEqual([{ tabId: 2, url: `${SHOP}/r?u=attacker` }]);
    expect(result.held?.target.origin).toBe('https://attacker.example');
    expect(result.held?.resume).toEqual({
      guard: 'open-tab',
      url: 'https://attacker.example/r?u=victim',
    });
    expect(host.tabs.has(2)).toBe(false);
  });

  it('a blocked destination in a new tab is refused, not asked about', async () => {
    const { host, guarded } = newTabSetup();
    host.newTabCauses = [newTab(`${VICTIM}/x`)];
    await expect(
      run(
        guarded,
        ctxWith([
          [SHOP, 'allow'],
          [VICTIM, 'block'],
        ]),
      ),
    ).rejects.toThrow(/Stopped: the action would open https:\/\/victim\.example\/x in a new tab/);
    expect(host.tabs.has(2)).toBe(false);
  });

  it('a POST form sent to a new tab on an allowed site is stopped and said, not replayed', async () => {
    const { host, guarded, visited } = newTabSetup();
    host.newTabCauses = [newTab(`${SHOP}/order`, 2, 'POST')];
    const result = await run(guarded, ctxWith([[SHOP, 'allow']]));
    expect(result.held).toBeUndefined();
    expect(visited).toEqual([]);
    expect(result.content.map((c) => (c as { text: string }).text).join(' ')).toMatch(
      /A POST form submission the page sent to a new tab/,
    );
  });

  it('approving a held new tab opens exactly its address in a new tab; the action does not run again', async () => {
    const { host, tool, guarded, visited } = newTabSetup();
    host.newTabCauses = [newTab(`${VICTIM}/x?d=1`)];
    const ctx = ctxWith([[SHOP, 'allow']]);
    const first = await run(guarded, ctx);
    expect(tool.runs).toBe(1);
    host.newTabCauses = [];
    const approved: ToolCallContext = {
      ...ctxWith([[SHOP, 'allow']], first.held?.resume),
      gate: receiverGate({
        descriptor,
        approvalMode: 'ask',
        rules: new Map([[SHOP, 'allow']]),
        covered: [{ origin: VICTIM }],
      }),
    };
    const second = await run(guarded, approved);
    expect(tool.runs).toBe(1);
    expect(second.held).toBeUndefined();
    const opened = visited.at(-1);
    expect(opened?.url).toBe(`${VICTIM}/x?d=1`);
    expect(opened?.tabId).not.toBe(1);
    expect(host.tabs.get(opened?.tabId ?? -1)?.openerTabId).toBe(1);
    expect(second.content[0]).toMatchObject({
      text: expect.stringMatching(/^Opened https:\/\/victim\.example\/x\?d=1 in a new tab/),
    });
  });
});

describe('browser_tab_open opens its tab under its own guard', () => {
  // The acting tab's guard does not cover a tab the call creates: the new tab opens blank, is
  // guarded, and only then goes to the address, so a redirect from the allowed shop to a site
  // the user never allowed is held (seeds 1059252571 and 4100785950 of the attack corpus).
  function openSetup() {
    const host = new GuardHost();
    host.addTab({ tabId: 1, url: `${SHOP}/page` });
    const navigate = host.navigate.bind(host);
    const visited: Array<{ tabId: number; url: string; armed: number }> = [];
    host.navigate = async (tabId: number, url: string) => {
      visited.push({ tabId, url, armed: host.armed.length });
      host.cause();
      return navigate(tabId, url);
    };
    const deps = { host, client: {} as never, debuggers: {} as never };
    return { host, visited, tool: tabOpenTool(deps as never) };
  }
  const openCtx = (rules: Array<[string, 'allow' | 'block']>): ToolCallContext => ({
    ...ctxWith(rules),
    gate: receiverGate({
      descriptor: { ...descriptor, name: 'browser_tab_open' },
      approvalMode: 'act',
      rules: new Map(rules),
      covered: [],
    }),
  });
  const open = (t: ReturnType<typeof tabOpenTool>, ctx: ToolCallContext, url: string) =>
    t.execute('c1', { url, active: false }, new AbortController().signal, () => undefined, ctx);

  it('a redirect to an origin without a rule is held, naming it, and the new tab is closed', async () => {
    const { host, visited, tool } = openSetup();
    host.causes = [nav(`${VICTIM}/act?d=SECRET`)];
    const result = await open(tool, openCtx([[SHOP, 'allow']]), `${SHOP}/r?u=http:%5C%5Cvictim`);
    expect(visited).toEqual([{ tabId: 2, url: `${SHOP}/r?u=http:%5C%5Cvictim`, armed: 1 }]);
    expect(host.armed[0].every((r) => r.condition.tabIds?.[0] === 2)).toBe(true);
    expect(result.held?.target.origin).toBe(VICTIM);
    expect(host.tabs.has(2)).toBe(false);
    expect(host.disarmed).toBe(1);
  });

  it('nothing blocked: the tab stays open at the address', async () => {
    const { host, tool } = openSetup();
    const result = await open(tool, openCtx([[SHOP, 'allow']]), `${SHOP}/a`);
    expect(result.held).toBeUndefined();
    expect(host.tabs.has(2)).toBe(true);
    expect((result.details as { tabId: number }).tabId).toBe(2);
  });

  it('a blocked destination is refused, not asked about', async () => {
    const { host, tool } = openSetup();
    host.causes = [nav(`${VICTIM}/x`)];
    await expect(
      open(
        tool,
        openCtx([
          [SHOP, 'allow'],
          [VICTIM, 'block'],
        ]),
        `${SHOP}/r`,
      ),
    ).rejects.toThrow(/Stopped/);
    expect(host.tabs.has(2)).toBe(false);
  });
});
