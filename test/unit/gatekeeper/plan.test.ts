/**
 * Approval mode 'plan' (issue 28 part 3), at the level where it lives: the pure Gatekeeper. A
 * generated check holds the plan to what it promises over every registered browser tool, MCP
 * tools, rules, targets, effects and random plans: it allows only what the user approved, never
 * a blocked site, a browser page or an always-ask action, and changes nothing outside plan mode.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approvedPlanOf,
  normalizePlanSite,
  planCovers,
  readPlanAnswer,
  writeKindOf,
} from '../../../src/gatekeeper/plan';
import { receiverVerdict } from '../../../src/gatekeeper/receiver';
import { decideVerdict, permissionKey } from '../../../src/gatekeeper/verdict';
import type {
  ApprovedPlan,
  PlanProposal,
  PlanSite,
  PlanWriteKind,
  SiteRule,
} from '../../../src/protocol';
import { createBrowserTools } from '../../../src/tools/browser';
import type { BrowserHost } from '../../../src/tools/browser/host';
import { describeTool } from '../../../src/tools/registry';
import { createProposePlanTool, proposalOf } from '../../../src/tools/builtin/propose-plan';
import type { ReceiverEffect, ToolDescriptor, ToolTarget } from '../../../src/tools/types';
import { Rng } from '../../sim/rng';

// Only the descriptors are read: a host whose every member is a no-op is enough.
const inertHost = new Proxy({}, { get: () => () => undefined }) as BrowserHost;
const BROWSER = createBrowserTools(inertHost, { thumbnails: false }).tools.map((t) =>
  describeTool(t),
);
const MCP_TOOL = describeTool({
  name: 'mcp__docs__search',
  label: 'Search',
  description: 'Search the docs',
  parameters: z.object({}),
  level: 'mcp',
  effects: 'write',
  binding: {
    kind: 'mcp',
    serverId: 'docs',
    endpoint: 'https://mcp.example/mcp',
    authIdentity: 'a',
  },
  execute: async () => ({ content: [] }),
});
const TOOLS: ToolDescriptor[] = [...BROWSER, MCP_TOOL];
const KINDS: PlanWriteKind[] = ['navigate', 'click', 'type', 'tool'];
const SITES = ['https://shop.example', 'https://mail.example', 'http://127.0.0.1:8080', 'mcp:docs'];

const SHOP: ToolTarget = { origin: 'https://shop.example', url: 'https://shop.example/cart' };
const MAIL: ToolTarget = { origin: 'https://mail.example', url: 'https://mail.example/inbox' };
const byName = (n: string) => TOOLS.find((d) => d.name === n)!;

function plan(sites: PlanSite[]): ApprovedPlan {
  return { sites, interactionId: 'int-1', approvedAt: 1 };
}

describe('writeKindOf', () => {
  it('classifies every browser write tool; reads and uploads have no plan kind', () => {
    for (const d of BROWSER) {
      const kind = writeKindOf(d);
      if (d.effects === 'read' || d.name === 'browser_upload_file') {
        if (d.effects === 'read') continue;
        expect(kind, d.name).toBeNull();
      } else expect(kind, `${d.name} needs a plan kind`).not.toBeNull();
    }
    expect(writeKindOf(byName('browser_navigate'))).toBe('navigate');
    expect(writeKindOf(byName('browser_type'))).toBe('type');
    expect(writeKindOf(byName('browser_keyboard'))).toBe('type');
    expect(writeKindOf(byName('browser_click'))).toBe('click');
    expect(writeKindOf(byName('browser_click'), 'destination')).toBe('navigate');
    expect(writeKindOf(MCP_TOOL)).toBe('tool');
  });
});

describe('plan mode verdicts (examples)', () => {
  const shopPlan = plan([{ site: 'https://shop.example', writes: ['click', 'type'] }]);
  const v = (name: string, target: ToolTarget, p?: ApprovedPlan, rule?: SiteRule) =>
    decideVerdict({
      descriptor: byName(name),
      target,
      rule,
      approvalMode: 'plan',
      ...(p ? { plan: p } : {}),
    });

  it('a write the plan names runs unasked, trusted input included', () => {
    expect(v('browser_click', SHOP, shopPlan)).toEqual({ kind: 'allow', reason: 'in_plan' });
    expect(v('browser_keyboard', SHOP, shopPlan)).toEqual({ kind: 'allow', reason: 'in_plan' });
  });
  it('another site, or a kind the plan did not name, asks "not in the plan"', () => {
    expect(v('browser_click', MAIL, shopPlan)).toMatchObject({
      kind: 'ask',
      reason: 'not_in_plan',
    });
    expect(v('browser_navigate', SHOP, shopPlan)).toMatchObject({
      kind: 'ask',
      reason: 'not_in_plan',
    });
  });
  it('before a plan is approved, writes ask as in ask mode; reads never ask', () => {
    expect(v('browser_click', SHOP)).toMatchObject({ kind: 'ask', reason: 'write' });
    expect(v('browser_snapshot', MAIL, shopPlan)).toEqual({ kind: 'allow', reason: 'read' });
  });
  it('a blocked site, a browser page and an always-ask action are outside any plan', () => {
    expect(v('browser_click', SHOP, shopPlan, 'block').kind).toBe('deny');
    const chrome = { origin: 'https://shop.example', url: 'chrome://settings' };
    expect(v('browser_click', chrome, shopPlan).kind).toBe('deny');
    expect(v('browser_click', { ...SHOP, alwaysAsk: 'payment' }, shopPlan)).toMatchObject({
      kind: 'ask',
      reason: 'always_ask:payment',
    });
  });
  it('a destination on a planned site needs navigate there', () => {
    const click = byName('browser_click');
    const navShop = plan([{ site: 'https://shop.example', writes: ['click', 'navigate'] }]);
    const rv = (p: ApprovedPlan, receiver: ToolTarget) =>
      receiverVerdict({
        descriptor: click,
        receiver,
        effect: 'destination',
        rule: undefined,
        approvalMode: 'plan',
        plan: p,
        covered: [],
      });
    expect(rv(shopPlan, SHOP)).toEqual({ kind: 'hold', reason: 'not_in_plan' });
    expect(rv(navShop, SHOP)).toEqual({ kind: 'allow', reason: 'in_plan' });
    expect(rv(navShop, MAIL)).toEqual({ kind: 'hold', reason: 'not_in_plan' });
  });
});

describe('plan mode verdicts (generated)', () => {
  it('allows only what an approved plan names, never past a deny or an always-ask', () => {
    const seed = Number(process.env.PLAN_SEED ?? 28_003);
    const rng = new Rng(seed);
    const seen = { inPlan: 0, notInPlan: 0 };
    const origins = [...SITES.filter((s) => !s.startsWith('mcp:')), 'file://', 'https://x.example'];
    for (let i = 0; i < 20_000; i++) {
      const descriptor = rng.pick(TOOLS);
      const origin = rng.pick(origins);
      const target: ToolTarget = {
        origin,
        url: rng.chance(0.05) ? 'chrome://extensions' : `${origin}/p`,
        ...(rng.chance(0.1) ? { alwaysAsk: 'payment' } : {}),
        ...(rng.chance(0.03) ? { forbidden: 'the page is Keel itself' } : {}),
        ...(descriptor.level === 'mcp' ? { serverId: 'docs' } : {}),
      };
      const rule = rng.pick([undefined, 'allow', 'ask', 'block'] as const);
      const effect: ReceiverEffect = rng.chance(0.3) ? 'destination' : 'input';
      const p = rng.chance(0.85)
        ? plan(
            SITES.filter(() => rng.chance(0.5)).map((site) => ({
              site,
              writes: KINDS.filter(() => rng.chance(0.5)),
            })),
          )
        : undefined;
      const ctx = `seed ${seed} case ${i}: ${descriptor.name} on ${JSON.stringify(target)} rule ${rule} effect ${effect} plan ${JSON.stringify(p?.sites)}`;
      const base = { descriptor, target, rule, effect };
      const planMode = decideVerdict({ ...base, approvalMode: 'plan', ...(p ? { plan: p } : {}) });
      const askMode = decideVerdict({ ...base, approvalMode: 'ask' });
      // Outside plan mode a plan changes nothing.
      for (const mode of ['ask', 'act'] as const)
        expect(
          decideVerdict({ ...base, approvalMode: mode, ...(p ? { plan: p } : {}) }),
          ctx,
        ).toEqual(decideVerdict({ ...base, approvalMode: mode }));
      // A deny stays a deny, an always-ask still asks.
      if (askMode.kind === 'deny') expect(planMode, ctx).toEqual(askMode);
      if (target.alwaysAsk && askMode.kind !== 'deny') expect(planMode.kind, ctx).toBe('ask');
      // Every allow in plan mode is an allow of ask mode, or named by the plan.
      if (planMode.reason === 'in_plan') seen.inPlan++;
      if (planMode.reason === 'not_in_plan') seen.notInPlan++;
      if (planMode.kind === 'allow' && askMode.kind !== 'allow') {
        expect(planMode.reason, ctx).toBe('in_plan');
        expect(
          planCovers(p, permissionKey(descriptor, target), writeKindOf(descriptor, effect)),
          ctx,
        ).toBe(true);
      }
      // With a plan approved, what asks says it is not in the plan (unless it must always ask).
      if (p && planMode.kind === 'ask' && !target.alwaysAsk)
        expect(planMode.reason, ctx).toBe('not_in_plan');
    }
    // The generator reaches both sides of the plan, not only the early exits.
    expect(seen.inPlan).toBeGreaterThan(500);
    expect(seen.notInPlan).toBeGreaterThan(1_000);
  });

  it('an answer never approves a site or kind the proposal did not offer', () => {
    const seed = Number(process.env.PLAN_SEED ?? 28_004);
    const rng = new Rng(seed);
    for (let i = 0; i < 5_000; i++) {
      const proposal: PlanProposal = {
        summary: 'Do it',
        steps: [],
        sites: SITES.filter(() => rng.chance(0.6)).map((site) => ({
          site,
          writes: KINDS.filter(() => rng.chance(0.5)),
        })),
      };
      if (!proposal.sites.length) continue;
      const edited = rng.chance(0.3)
        ? undefined
        : SITES.filter(() => rng.chance(0.6)).map((site) => ({
            site,
            writes: KINDS.filter(() => rng.chance(0.5)),
          }));
      const read = readPlanAnswer(proposal, {
        approved: true,
        ...(edited ? { sites: edited } : {}),
      });
      const ctx = `seed ${seed} case ${i}: ${JSON.stringify({ proposal, edited })}`;
      if (read.kind !== 'approved') {
        expect(read.kind, ctx).toBe('invalid');
        continue;
      }
      for (const s of read.sites) {
        const offered = proposal.sites.find((o) => o.site === s.site);
        expect(offered, ctx).toBeDefined();
        for (const w of s.writes) expect(offered!.writes, ctx).toContain(w);
      }
    }
  });
});

describe('propose_plan', () => {
  const tool = createProposePlanTool();
  const proposal = proposalOf({
    summary: ' Buy the blue mug ',
    steps: ['Find the mug', 'Add it to the cart'],
    sites: [
      { site: 'shop.example/mugs', writes: ['click'] },
      { site: 'https://shop.example', writes: ['type', 'click'], why: 'search' },
      { site: 'http://127.0.0.1:8080/x', writes: [] },
    ],
  });

  it('normalizes sites to origins (a bare host is https) and merges repeats', () => {
    expect(proposal).toEqual({
      summary: 'Buy the blue mug',
      steps: ['Find the mug', 'Add it to the cart'],
      sites: [
        { site: 'https://shop.example', writes: ['click', 'type'], why: 'search' },
        { site: 'http://127.0.0.1:8080', writes: [] },
      ],
    });
    expect(normalizePlanSite('file:///etc/passwd')).toBeNull();
    expect(normalizePlanSite('mcp:docs')).toBe('mcp:docs');
    expect(normalizePlanSite('javascript:alert(1)')).toBeNull();
  });

  it('refuses a site that is not an http(s) origin or an MCP server', () => {
    const r = tool.parameters.safeParse({
      summary: 's',
      sites: [{ site: 'file:///x', writes: [] }],
    });
    expect(r.success).toBe(false);
  });

  it('validates the answer against the proposal and stores only what was approved', () => {
    const i = tool.interaction!;
    expect(i.validateResponse!(proposal, { approved: true })).toBeNull();
    expect(
      i.validateResponse!(proposal, {
        approved: true,
        sites: [{ site: 'https://shop.example', writes: ['navigate'] }],
      }),
    ).toBe('the plan did not propose navigate on https://shop.example');
    expect(
      i.validateResponse!(proposal, {
        approved: true,
        sites: [{ site: 'https://mail.example', writes: [] }],
      }),
    ).toBe('https://mail.example is not in the proposed plan');
    expect(i.validateResponse!(proposal, { yes: 1 })).toMatch(/response must be/);
    const narrowed = approvedPlanOf(
      proposal,
      { approved: true, sites: [{ site: 'https://shop.example', writes: ['click'] }] },
      'int-9',
      5,
    );
    expect(narrowed).toEqual({
      sites: [{ site: 'https://shop.example', writes: ['click'] }],
      interactionId: 'int-9',
      approvedAt: 5,
    });
    expect(approvedPlanOf(proposal, { rejected: true }, 'int-9', 5)).toBeNull();
    const text = JSON.stringify(i.complete(proposal, { approved: true }).content);
    expect(text).toContain('https://shop.example: click, type');
    expect(text).toContain('http://127.0.0.1:8080: read only');
    const rejected = JSON.stringify(
      i.complete(proposal, { rejected: true, note: 'Not the mail' }).content,
    );
    expect(rejected).toContain('rejected the plan');
    expect(rejected).toContain('Not the mail');
  });
});
