import { describe, expect, it } from 'vitest';
import { allowedDestinations } from '../../../src/gatekeeper/receiver';
import {
  guardJudgement,
  guardRules,
  heldWhat,
  newTabRule,
  type ObservedRequest,
} from '../../../src/tools/browser/guard/guard-policy';
import type { DestinationAllowance, ToolDescriptor } from '../../../src/tools/types';

/**
 * What the navigation and request guard holds (guard-policy.ts): navigations away from the
 * allowed origins always; a subframe POST; a non-GET request only when the document sending it
 * is not allowed either (an allowed app posting to its API, its payment provider or its
 * analytics is the page's own business, not an effect of the agent on another site); beacons
 * never (reported). The DNR rules are the same policy written as data.
 */
const APP = 'https://app.example';
const allowance: DestinationAllowance = {
  kind: 'origins',
  origins: [APP, 'http://127.0.0.1:8080'],
};
const req = (over: Partial<ObservedRequest>): ObservedRequest => ({
  url: 'https://victim.example/x',
  method: 'GET',
  type: 'main_frame',
  frameId: 0,
  ...over,
});

describe('what the guard holds', () => {
  it.each([
    ['top navigation to another origin', req({}), 'hold'],
    ['top form POST to another origin', req({ method: 'POST' }), 'hold'],
    ['top navigation to an allowed origin', req({ url: `${APP}/next` }), 'pass'],
    ['same host, other port (another origin)', req({ url: 'http://127.0.0.1:9090/' }), 'hold'],
    ['allowed loopback origin', req({ url: 'http://127.0.0.1:8080/a?b' }), 'pass'],
    [
      'GET subframe load started by the allowed page (an embed)',
      req({ type: 'sub_frame', frameId: 4, initiator: APP }),
      'pass',
    ],
    [
      'GET subframe navigation started by a frame not allowed (a drop onto a hidden frame)',
      req({ type: 'sub_frame', frameId: 4, initiator: 'https://victim.example' }),
      'hold',
    ],
    ['GET subframe navigation with no initiator', req({ type: 'sub_frame', frameId: 4 }), 'hold'],
    ['POST into a subframe', req({ type: 'sub_frame', method: 'POST', frameId: 4 }), 'hold'],
    [
      'app. → api. POST from the allowed app',
      req({
        url: 'https://api.example.net/v1',
        type: 'xmlhttprequest',
        method: 'POST',
        initiator: APP,
      }),
      'pass',
    ],
    [
      'POST from a frame that is not allowed (the click landed in it)',
      req({ type: 'xmlhttprequest', method: 'POST', initiator: 'https://victim.example' }),
      'hold',
    ],
    [
      'DELETE from a subdomain of an allowed host (DNR initiator domains include subdomains)',
      req({ type: 'xmlhttprequest', method: 'DELETE', initiator: 'https://cdn.app.example' }),
      'pass',
    ],
    [
      'GET fetch to another site',
      req({ type: 'xmlhttprequest', initiator: 'https://victim.example' }),
      'pass',
    ],
    ['sendBeacon to analytics', req({ type: 'ping', method: 'POST' }), 'report'],
    ['a non-web URL', req({ url: 'data:text/html,x' }), 'pass'],
  ])('%s → %s', (_name, r, expected) => {
    expect(guardJudgement(r, allowance).kind).toBe(expected);
  });

  it('a read (any destination) writes no rules and holds nothing', () => {
    expect(guardRules({ tabId: 3, allowance: { kind: 'any' }, firstId: 1 })).toEqual([]);
    expect(guardJudgement(req({ method: 'POST' }), { kind: 'any' }).kind).toBe('pass');
  });

  it('the rules: blocks at priority 1 scoped to the tab, one allow per origin above them, main_frame named', () => {
    const rules = guardRules({ tabId: 3, allowance, firstId: 100 });
    expect(rules.map((r) => r.id)).toEqual([100, 101, 102, 103, 104, 105]);
    expect(
      rules.every((r) => r.condition.tabIds?.length === 1 && r.condition.tabIds[0] === 3),
    ).toBe(true);
    const allows = rules.filter((r) => r.action.type === 'allow');
    expect(allows.map((r) => r.condition.urlFilter)).toEqual([
      `|${APP}/`,
      '|http://127.0.0.1:8080/',
    ]);
    // Without resourceTypes a rule never matches main_frame (measured in Chromium 156).
    for (const a of allows) expect(a.condition.resourceTypes).toContain('main_frame');
    expect(allows.every((a) => a.priority > 1)).toBe(true);
    const requests = rules.find(
      (r) => r.condition.excludedInitiatorDomains && r.condition.excludedResourceTypes,
    );
    expect(requests?.condition.excludedInitiatorDomains).toEqual(['app.example', '127.0.0.1']);
    expect(requests?.condition.excludedResourceTypes).toEqual(
      expect.arrayContaining(['main_frame', 'sub_frame', 'ping']),
    );
  });
});

const descriptor = (over: Partial<ToolDescriptor>): ToolDescriptor => ({
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
  ...over,
});

describe('the new-tab rule', () => {
  it('holds every top-frame navigation outside the tabs open when it was written, above every allow rule', () => {
    const rule = newTabRule(4095, [3, 7, 3]);
    expect(rule).toEqual({
      id: 4095,
      priority: 3,
      action: { type: 'block' },
      condition: { excludedTabIds: [-1, 3, 7], resourceTypes: ['main_frame'] },
    });
    const allows = guardRules({ tabId: 3, allowance, firstId: 100 }).filter(
      (r) => r.action.type === 'allow',
    );
    expect(allows.length).toBeGreaterThan(0);
    // A tab-scoped allow of another guard never lets a new tab's first address through.
    expect(allows.every((r) => r.priority < rule.priority)).toBe(true);
  });

  it('a held new tab is described as one', () => {
    const r = req({ url: 'https://victim.example/x', type: 'main_frame', method: 'GET' });
    expect(heldWhat(r, 'new_tab')).toBe(
      'the action would open https://victim.example/x in a new tab',
    );
    expect(heldWhat({ ...r, method: 'POST' }, 'new_tab')).toMatch(
      /in a new tab \(a POST form submission\)$/,
    );
  });
});

describe('the destinations a call reaches without asking', () => {
  const rules = new Map([
    [APP, 'allow' as const],
    ['https://blocked.example', 'block' as const],
    ['mcp:server', 'allow' as const],
  ]);

  it('a write: allow rules and what this call approved, never blocked sites or mcp keys', () => {
    expect(
      allowedDestinations({
        descriptor: descriptor({}),
        approvalMode: 'ask',
        rules,
        covered: [{ origin: 'https://shop.example', alwaysAsk: 'x' }],
      }),
    ).toEqual({ kind: 'origins', origins: [APP, 'https://shop.example'] });
  });

  it('a read reaches anything (it is not guarded)', () => {
    expect(
      allowedDestinations({
        descriptor: descriptor({ effects: 'read' }),
        approvalMode: 'ask',
        rules,
        covered: [],
      }).kind,
    ).toBe('any');
  });
});
