/**
 * The Gatekeeper at the moment of effect (docs/permissions.md "Where each decision is made").
 *
 * `decideVerdict` judges the call the model asked for, on the target the tool *predicted* from the
 * DOM. The page decides where an effect really lands: a transparent frame over the button, a
 * focus stolen between two keys, a label that submits a form to another site, a redirect. So the
 * executor asks this verdict about each real receiver just before delivering to it:
 *
 * - the verdict the receiver would get as a call of its own (same tool, same rules, same mode):
 *   `deny` stays deny, `allow` (a read, an allow rule that covers the tool's level) delivers;
 * - otherwise the receiver is delivered to only if this call's approval named it: the judged
 *   target the user approved, or a receiver approved after an earlier hold of this call. An
 *   approval covers one receiver: a different origin, or an always-ask reason the approval did not
 *   show (a label that turns out to submit a payment form), is held and asked about;
 * - a destination (a navigation or request the action causes) is judged as a DOM-level write on
 *   its origin: "trusted input asks every time" is about where the input lands, not about the
 *   pages it leads to.
 */
import type { ApprovalMode, SiteRule } from '../protocol';
import type {
  DestinationAllowance,
  ReceiverEffect,
  ReceiverGate,
  ReceiverVerdict,
  ToolDescriptor,
  ToolTarget,
} from '../tools/types';
import type { ApprovedPlan } from './plan';
import { decideVerdict, permissionKey } from './verdict';

/** A receiver this call's approvals named: its origin and the always-ask reason the user saw. */
export interface CoveredReceiver {
  origin: string;
  alwaysAsk?: string;
}

export interface ReceiverInput {
  descriptor: ToolDescriptor;
  receiver: ToolTarget;
  effect: ReceiverEffect;
  rule: SiteRule | undefined;
  approvalMode: ApprovalMode;
  /** The turn's approved site plan ('plan' mode). */
  plan?: ApprovedPlan;
  /** What the user approved for this call (empty when it ran under a rule or as a read). */
  covered: readonly CoveredReceiver[];
}

export function receiverVerdict({
  descriptor,
  receiver,
  effect,
  rule,
  approvalMode,
  plan,
  covered,
}: ReceiverInput): ReceiverVerdict {
  // A destination is reached by the page's own navigation or request, never by trusted input.
  const judgedAs: ToolDescriptor =
    effect === 'destination' && descriptor.level === 'L2'
      ? { ...descriptor, level: 'L1' }
      : descriptor;
  const v = decideVerdict({
    descriptor: judgedAs,
    target: receiver,
    rule,
    approvalMode,
    ...(plan ? { plan } : {}),
    effect,
  });
  if (v.kind === 'deny') return v;
  if (v.kind === 'allow') return v;
  const origin = receiver.origin;
  const named =
    origin !== undefined &&
    covered.some(
      (c) =>
        c.origin === origin &&
        (receiver.alwaysAsk === undefined || c.alwaysAsk === receiver.alwaysAsk),
    );
  if (named) return { kind: 'allow', reason: 'approved_receiver' };
  return { kind: 'hold', reason: v.reason };
}

export interface GateSnapshot {
  descriptor: ToolDescriptor;
  approvalMode: ApprovalMode;
  plan?: ApprovedPlan;
  /** Every site rule, by permission key, as read when the call was dispatched. */
  rules: ReadonlyMap<string, SiteRule>;
  covered: readonly CoveredReceiver[];
}

/**
 * The origins `receiverVerdict` allows as destinations of this call, listed up front: the
 * guard writes them as declarativeNetRequest allow rules before the action starts. A read
 * allows any destination; otherwise origins with an allow rule and the origins approved for this
 * call (a destination carries no alwaysAsk, so any approval naming the origin covers it), and in
 * 'plan' mode the plan's sites it may navigate.
 */
export function allowedDestinations(snapshot: GateSnapshot): DestinationAllowance {
  const d = snapshot.descriptor;
  if (d.level === 'mcp' || d.level === 'builtin') return { kind: 'any' };
  if (d.effects === 'read' || d.skipApproval) return { kind: 'any' };
  const origins = new Set<string>();
  for (const [key, rule] of snapshot.rules) if (rule === 'allow') origins.add(key);
  for (const c of snapshot.covered) origins.add(c.origin);
  if (snapshot.approvalMode === 'plan')
    for (const s of snapshot.plan?.sites ?? [])
      if (s.writes.includes('navigate')) origins.add(s.site);
  return { kind: 'origins', origins: [...origins].filter((o) => /^https?:\/\//.test(o)) };
}

/** The gate a call runs with: `receiverVerdict` over one snapshot of the rules and approvals. */
export function receiverGate(snapshot: GateSnapshot): ReceiverGate {
  return {
    check(receiver, effect) {
      try {
        const key = permissionKey(snapshot.descriptor, receiver);
        return receiverVerdict({
          descriptor: snapshot.descriptor,
          receiver,
          effect,
          rule: key ? snapshot.rules.get(key) : undefined,
          approvalMode: snapshot.approvalMode,
          ...(snapshot.plan ? { plan: snapshot.plan } : {}),
          covered: snapshot.covered,
        });
      } catch (e) {
        // The contract says never throw: a gate that cannot judge holds.
        return { kind: 'hold', reason: `unjudged:${e instanceof Error ? e.message : String(e)}` };
      }
    },
    destinations: () => allowedDestinations(snapshot),
  };
}

/**
 * A gate that lets every effect through. Only for tests that call a tool directly, with no
 * engine and no user: nothing in the extension may construct one.
 */
export function openGateForTests(): ReceiverGate {
  return { check: () => ({ kind: 'allow', reason: 'test' }) };
}
