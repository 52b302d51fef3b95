/**
 * What the navigation and request guard holds while an agent action runs and settles, written
 * once as data: the declarativeNetRequest session rules for the agent's tab (`guardRules`) and the
 * same policy as a function over one request (`guardJudgement`), used to read Chrome's reports of
 * what was blocked and to test the policy (test/unit/security/guard-policy.test.ts).
 * docs/security.md "The navigation and request guard" says why each line is what it is.
 *
 * | request in the agent's tab, to an origin not allowed | held? |
 * |-----------------------------------------------------------|-------|
 * | top-frame navigation (any method: link, form, redirect, history) | yes |
 * | subframe navigation by POST (a form targeting a frame)    | yes   |
 * | subframe navigation by GET started by a document not allowed (a drop onto a hidden frame, a frame navigating itself) | yes |
 * | subframe load by GET started by an allowed page (an embed appearing) | no: the page embeds what it likes |
 * | non-GET fetch/XHR/WebSocket… from a document not allowed (a frame that got the input) | yes |
 * | non-GET fetch/XHR from an allowed document (app. → api., Firebase, analytics) | no: the page could send it without the agent |
 * | beacons and `<a ping>` (type `ping`), CSP reports          | no (reported) |
 * | GET, HEAD, OPTIONS subresources                           | no    |
 *
 * "Allowed" is the call's `DestinationAllowance`: origins with an allow rule and origins this
 * call's approvals named. A destination on an allowed origin always passes.
 */
import type { DestinationAllowance } from '../../types';

/** The subset of chrome.declarativeNetRequest.Rule the guard writes (plain data, no chrome.*). */
export interface GuardRule {
  id: number;
  priority: number;
  action: { type: 'block' | 'allow' };
  condition: {
    tabIds?: number[];
    /** Session rules only: every tab but these (-1 stands for requests of no tab). */
    excludedTabIds?: number[];
    urlFilter?: string;
    resourceTypes?: string[];
    excludedResourceTypes?: string[];
    excludedRequestMethods?: string[];
    excludedInitiatorDomains?: string[];
  };
}

/** Every resource type: a rule without `resourceTypes` silently skips main_frame (measured). */
export const ALL_RESOURCE_TYPES = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
] as const;

const SAFE_METHODS = ['get', 'head', 'options'];
const REPORTED_ONLY = ['ping', 'csp_report'];

/** Host names of the allowed origins (DNR initiator conditions take domains, not origins). */
function allowedHosts(origins: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const o of origins) {
    try {
      const u = new URL(o);
      if (u.protocol === 'http:' || u.protocol === 'https:') hosts.add(u.hostname);
    } catch {
      // a permission key that is not a web origin (mcp:…) has no requests
    }
  }
  return [...hosts];
}

const webOrigins = (origins: readonly string[]) =>
  origins.filter((o) => /^https?:\/\/[^/]+$/.test(o));

/**
 * The session rules that hold, in tab `tabId`, what the table above holds. Ids run from
 * `firstId`; block rules have priority 1, the allow rule of each allowed origin priority 2 (an
 * allow outranks a block of the same request). Empty when everything is allowed.
 */
export function guardRules(opts: {
  tabId: number;
  allowance: DestinationAllowance;
  firstId: number;
}): GuardRule[] {
  const { tabId, allowance, firstId } = opts;
  if (allowance.kind === 'any') return [];
  const hosts = allowedHosts(allowance.origins);
  const block = (condition: Omit<GuardRule['condition'], 'tabIds'>) => ({
    priority: 1,
    action: { type: 'block' as const },
    condition: { tabIds: [tabId], ...condition },
  });
  const rules: Omit<GuardRule, 'id'>[] = [
    block({ resourceTypes: ['main_frame'] }),
    block({ resourceTypes: ['sub_frame'], excludedRequestMethods: SAFE_METHODS }),
    block({
      resourceTypes: ['sub_frame'],
      ...(hosts.length ? { excludedInitiatorDomains: hosts } : {}),
    }),
    block({
      excludedResourceTypes: ['main_frame', 'sub_frame', ...REPORTED_ONLY],
      excludedRequestMethods: SAFE_METHODS,
      ...(hosts.length ? { excludedInitiatorDomains: hosts } : {}),
    }),
    ...webOrigins(allowance.origins).map((origin) => ({
      priority: 2,
      action: { type: 'allow' as const },
      condition: {
        tabIds: [tabId],
        urlFilter: `|${origin}/`,
        resourceTypes: [...ALL_RESOURCE_TYPES],
      },
    })),
  ];
  return rules.map((r, i) => ({ ...r, id: firstId + i }));
}

/**
 * The rule that holds every top-frame navigation in a tab that did not exist when the action
 * started: a popup, a `target=_blank` link, a dragged link Chrome drops as a new tab. A rule
 * added once Chrome reports the new tab arrives after its first request (measured, docs/security.md),
 * so this one is written before the action with the tabs that existed then excluded (and -1:
 * requests of no tab, a service worker's). Priority 3 outranks every guard's allow rules: a new
 * tab's first address is judged by the guard that armed it (request-guard.ts), which opens an
 * allowed one again under that tab's own rules, so a redirect chain through another site is
 * held there as well.
 */
export function newTabRule(id: number, existingTabIds: readonly number[]): GuardRule {
  return {
    id,
    priority: 3,
    action: { type: 'block' },
    condition: {
      excludedTabIds: [...new Set([-1, ...existingTabIds])],
      resourceTypes: ['main_frame'],
    },
  };
}

/** A request Chrome reported for the agent's tab (webRequest details, trimmed). */
export interface ObservedRequest {
  /** The tab it belongs to, when it was reported for a tab other than the armed one (a new tab). */
  tabId?: number;
  url: string;
  method: string;
  /** chrome.webRequest resource type: main_frame, sub_frame, xmlhttprequest, ping… */
  type: string;
  frameId: number;
  /** The origin of the document that sent it (absent for browser-initiated loads). */
  initiator?: string;
}

export type GuardJudgement =
  | { kind: 'pass' }
  | { kind: 'hold'; as: 'navigation' | 'frame_navigation' | 'request' }
  | { kind: 'report' };

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the sending document's host is allowed (DNR matches initiator domains with subdomains). */
function initiatorAllowed(initiator: string | undefined, origins: readonly string[]): boolean {
  const from = initiator ? originOf(initiator) : undefined;
  if (!from) return false;
  const host = new URL(from).hostname;
  return allowedHosts(origins).some((h) => host === h || host.endsWith(`.${h}`));
}

/** `guardRules` as a function of one request (the two must agree: the test checks the table). */
export function guardJudgement(
  req: ObservedRequest,
  allowance: DestinationAllowance,
): GuardJudgement {
  if (allowance.kind === 'any') return { kind: 'pass' };
  const origin = originOf(req.url);
  if (origin === undefined) return { kind: 'pass' };
  if (allowance.origins.includes(origin)) return { kind: 'pass' };
  const safe = SAFE_METHODS.includes(req.method.toLowerCase());
  if (req.type === 'main_frame') return { kind: 'hold', as: 'navigation' };
  const fromAllowed = initiatorAllowed(req.initiator, allowance.origins);
  if (req.type === 'sub_frame')
    return safe && fromAllowed ? { kind: 'pass' } : { kind: 'hold', as: 'frame_navigation' };
  if (safe) return { kind: 'pass' };
  if (REPORTED_ONLY.includes(req.type)) return { kind: 'report' };
  return fromAllowed ? { kind: 'pass' } : { kind: 'hold', as: 'request' };
}

/** The first request the policy holds, with how it is held. */
export function firstHeld(blocked: readonly ObservedRequest[], allowance: DestinationAllowance) {
  for (const req of blocked) {
    const j = guardJudgement(req, allowance);
    if (j.kind === 'hold') return { req, as: j.as };
  }
  return undefined;
}

/** Plain words for the approval card and the model ("would navigate the tab to …"). */
export function heldWhat(
  req: ObservedRequest,
  as: 'navigation' | 'frame_navigation' | 'request' | 'new_tab',
): string {
  const url = req.url.length > 300 ? `${req.url.slice(0, 300)}…` : req.url;
  if (as === 'new_tab')
    return `the action would open ${url} in a new tab${req.method.toUpperCase() === 'GET' ? '' : ` (a ${req.method.toUpperCase()} form submission)`}`;
  if (as === 'navigation')
    return `the action would take the tab to ${url}${req.method.toUpperCase() === 'GET' ? '' : ` (a ${req.method.toUpperCase()} form submission)`}`;
  if (as === 'frame_navigation')
    return `the action would load ${url} in a frame${req.method.toUpperCase() === 'GET' ? '' : ` with a ${req.method.toUpperCase()} request`}${req.initiator ? `, started by a document of ${req.initiator}` : ''}`;
  return `the action would send a ${req.method.toUpperCase()} request to ${url}${req.initiator ? ` from a document of ${req.initiator}` : ''}`;
}
