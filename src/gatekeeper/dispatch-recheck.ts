/**
 * The Gatekeeper's second look, at dispatch (docs/permissions.md "Dispatch-time re-check"). An
 * approval was given for one judged action: its target (origin, URL, frame, flags), the site
 * rule's version, the tool's descriptor and the digest binding them to the parameters. Between
 * the decision and the dispatch the page can change under it (focus moved into a card field,
 * the tab navigated, a frame took over), so the whole verdict is computed again on what would
 * run now, and any difference asks again. Pure: the caller resolves the target and rule.
 */
import type { Decision } from '../protocol';
import type { ToolTarget } from '../tools/types';
import { ALL_DECISIONS, type Verdict } from './verdict';

/** What the approval (or the allow verdict) was given for. */
export interface JudgedCall {
  target?: ToolTarget;
  ruleVersion?: number;
  descriptorDigest?: string;
  /** approvalDigest(descriptor, params, origin) at approval; absent when no user approved. */
  approvalDigest?: string;
  /**
   * Receivers the user approved for this call after the executor held them (receiver.ts): the
   * call now acting there is what the user just approved, not a drift.
   */
  grants?: readonly { origin: string; alwaysAsk?: string }[];
}

/** The same call judged now, where it would run. */
export interface CurrentCall {
  target: ToolTarget;
  ruleVersion: number;
  descriptorDigest: string;
  /** approvalDigest(descriptor, the stored params, target.origin) computed now. */
  approvalDigest: string;
  /** decideVerdict on the current target and rule. */
  verdict: Verdict;
}

export type DispatchRecheck =
  | { kind: 'dispatch' }
  /** The call may not run at all now (blocked site, browser page, forbidden target). */
  | { kind: 'deny'; reason: string }
  /** Something the approval covered changed: ask again with these options. */
  | { kind: 'ask'; drift: string; options: Decision[] };

/** The first difference between what was approved and what would run, or null. */
export function driftOf(approved: JudgedCall, current: CurrentCall): string | null {
  const was = approved.target ?? {};
  const now = current.target;
  // Focus moved into a frame the user was just asked about and approved: the call's target
  // follows it. Without this the call would be asked about a second time, as a new call, and
  // lose what it already delivered (a held key sequence would start over).
  // (A call's own approval grants its judged origin: only a move to another origin counts here.)
  const granted =
    now.origin !== was.origin &&
    (approved.grants ?? []).some(
      (g) => g.origin === now.origin && (g.alwaysAsk ?? null) === (now.alwaysAsk ?? null),
    );
  // (The rule version belongs to the first target's key; a block rule on the receiver is a deny
  // in the current verdict, which dispatchRecheck applies before any drift.)
  if (granted && !now.forbidden) {
    if (current.descriptorDigest !== approved.descriptorDigest) return 'the tool changed';
    return null;
  }
  if ((now.origin ?? null) !== (was.origin ?? null))
    return `the tab is now on ${now.origin ?? 'another page'}`;
  if ((now.topOrigin ?? null) !== (was.topOrigin ?? null))
    return `the action is now in a frame of ${now.topOrigin ?? 'no other page'}`;
  if ((now.url ?? null) !== (was.url ?? null))
    return `the page address changed to ${now.url ?? 'none'}`;
  if ((now.forbidden ?? null) !== (was.forbidden ?? null))
    return now.forbidden ? `it is now refused: ${now.forbidden}` : 'the page is no longer refused';
  if ((now.alwaysAsk ?? null) !== (was.alwaysAsk ?? null))
    return now.alwaysAsk ? `it now ${now.alwaysAsk}` : 'what it acts on changed';
  if (current.ruleVersion !== (approved.ruleVersion ?? 0)) return 'the site permission changed';
  if (current.descriptorDigest !== approved.descriptorDigest) return 'the tool changed';
  if (approved.approvalDigest !== undefined && approved.approvalDigest !== current.approvalDigest)
    return 'the approved call changed';
  return null;
}

/**
 * Dispatch only what was judged: a deny now is final (a refused target stays refused, whatever
 * was approved), any drift asks again — with the current verdict's options, so a call that must
 * always ask keeps its once-only choices — and only an unchanged call runs.
 */
export function dispatchRecheck(approved: JudgedCall, current: CurrentCall): DispatchRecheck {
  if (current.verdict.kind === 'deny') return { kind: 'deny', reason: current.verdict.reason };
  const drift = driftOf(approved, current);
  if (!drift) return { kind: 'dispatch' };
  return {
    kind: 'ask',
    drift,
    options: current.verdict.kind === 'ask' ? current.verdict.options : ALL_DECISIONS,
  };
}
