import type {
  ApprovedPlan,
  PlanProposal,
  PlanResponse,
  PlanSite,
  PlanWriteKind,
} from '../protocol';
import type { ReceiverEffect, ToolDescriptor } from '../tools/types';

export type { ApprovedPlan };

/**
 * The Gatekeeper's reading of a site plan (approval mode 'plan'). The model proposes the sites it
 * will read and write and the kinds of write; the user approves once (or narrows it); then, for
 * that turn, a write the plan names runs unasked and anything else asks ("not in the plan").
 * Blocked sites, browser pages and always-ask actions are decided before the plan is consulted
 * (verdict.ts), so no plan can cover them.
 */

const KIND_BY_TOOL: Readonly<Record<string, PlanWriteKind>> = {
  browser_navigate: 'navigate',
  browser_go_back: 'navigate',
  browser_tab_open: 'navigate',
  browser_tab_close: 'navigate',
  browser_tab_switch: 'navigate',
  browser_click: 'click',
  browser_hover: 'click',
  browser_scroll: 'click',
  browser_select: 'click',
  browser_dialog: 'click',
  browser_mouse: 'click',
  browser_type: 'type',
  browser_press_key: 'type',
  browser_keyboard: 'type',
};

/**
 * The kind of write a call is, as a plan names it; null for a write no plan can name (an
 * unclassified tool, an upload): it always asks in plan mode. A destination the action reaches
 * (a navigation or request the page makes) is a navigation of the destination's site.
 */
export function writeKindOf(
  descriptor: ToolDescriptor,
  effect: ReceiverEffect = 'input',
): PlanWriteKind | null {
  if (descriptor.level === 'mcp') return 'tool';
  if (effect === 'destination') return 'navigate';
  return KIND_BY_TOOL[descriptor.name] ?? null;
}

/** Whether the approved plan names this kind of write on this site (its permission key). */
export function planCovers(
  plan: ApprovedPlan | undefined,
  key: string | undefined,
  kind: PlanWriteKind | null,
): boolean {
  if (!plan || !key || !kind) return false;
  return plan.sites.some((s) => s.site === key && s.writes.includes(kind));
}

/**
 * A site as the model wrote it, as a permission key: an http(s) origin (a bare host means
 * https), or `mcp:<server>`. Anything else (file:, a path-only string) is not a site a plan can
 * name, because it would stand for many pages at once.
 */
export function normalizePlanSite(raw: string): string | null {
  const s = raw.trim();
  if (/^mcp:[^\s/]+$/.test(s)) return s;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(s) ? s : `https://${s}`;
  try {
    const u = new URL(withScheme);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (!u.hostname) return null;
    return u.origin;
  } catch {
    return null;
  }
}

export type PlanAnswer =
  | { kind: 'approved'; sites: PlanSite[]; note?: string }
  | { kind: 'rejected'; note?: string }
  | { kind: 'invalid'; error: string };

/**
 * The user's answer checked against the proposal: an edit may drop sites and kinds, never add
 * them, so an approval never covers more than the card showed.
 */
export function readPlanAnswer(proposal: PlanProposal, response: PlanResponse): PlanAnswer {
  if ('rejected' in response) {
    const note = response.note?.trim();
    return note ? { kind: 'rejected', note } : { kind: 'rejected' };
  }
  const sites = response.sites ?? proposal.sites;
  const seen = new Set<string>();
  for (const s of sites) {
    const offered = proposal.sites.find((p) => p.site === s.site);
    if (!offered) return { kind: 'invalid', error: `${s.site} is not in the proposed plan` };
    if (seen.has(s.site)) return { kind: 'invalid', error: `${s.site} is listed twice` };
    seen.add(s.site);
    const extra = s.writes.find((w) => !offered.writes.includes(w));
    if (extra) return { kind: 'invalid', error: `the plan did not propose ${extra} on ${s.site}` };
  }
  const note = response.note?.trim();
  return {
    kind: 'approved',
    sites: sites.map((s) => ({ site: s.site, writes: [...new Set(s.writes)].sort() })),
    ...(note ? { note } : {}),
  };
}

/**
 * The plan an answer approves, to store in the run's environment with the answer; null when the
 * answer rejects or does not read.
 */
export function approvedPlanOf(
  proposal: PlanProposal,
  response: PlanResponse,
  interactionId: string,
  now: number,
): ApprovedPlan | null {
  const read = readPlanAnswer(proposal, response);
  return read.kind === 'approved' ? { sites: read.sites, interactionId, approvedAt: now } : null;
}
