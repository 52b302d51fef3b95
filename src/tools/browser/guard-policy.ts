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
import type { DestinationAllowance } from '../types';

/** The subset of chrome.declarativeNetRequest.Rule the guard writes (plain data, no chrome.*). */
export interface GuardRule {
  id: number;
  priority: number;
  action: { type: 'block' | 'allow' };
  condition: {
    tabIds: number[];
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

/** A request Chrome reported for the agent's tab (webRequest details, trimmed). */
export interface ObservedRequest {
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

/** Plain words for the approval card and the model ("would navigate the tab to …"). */
export function heldWhat(
  req: ObservedRequest,
  as: 'navigation' | 'frame_navigation' | 'request',
): string {
  const url = req.url.length > 300 ? `${req.url.slice(0, 300)}…` : req.url;
  if (as === 'navigation')
    return `the action would take the tab to ${url}${req.method.toUpperCase() === 'GET' ? '' : ` (a ${req.method.toUpperCase()} form submission)`}`;
  if (as === 'frame_navigation')
    return `the action would load ${url} in a frame${req.method.toUpperCase() === 'GET' ? '' : ` with a ${req.method.toUpperCase()} request`}${req.initiator ? `, started by a document of ${req.initiator}` : ''}`;
  return `the action would send a ${req.method.toUpperCase()} request to ${url}${req.initiator ? ` from a document of ${req.initiator}` : ''}`;
}
