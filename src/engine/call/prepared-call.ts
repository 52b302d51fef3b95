import type { Decision } from '../../protocol';
import type { PreparedToolCall, ReceiverGrant } from '../../store/records';
import type { ToolTarget } from '../../tools/types';
import { afterDecision, afterUncertainResolution } from '../run/run-machine';

/**
 * The phase changes of a `PreparedToolCall`, as pure functions from one phase's shape to the
 * next's: each keeps exactly the fields its phase carries (see the union in records.ts).
 */

type Phase<P extends PreparedToolCall['phase']> = PreparedToolCall & { phase: P };

/** The user's decision on a parked call (`afterDecision`); `ruleVersion` is the rule after it. */
export function decidedCall(
  p: Phase<'awaiting_approval'>,
  decision: Decision,
  ruleVersion: number,
  reason?: string,
): PreparedToolCall {
  const { phase: _phase, holding, resume: _resume, grants, ...rest } = p;
  const next = afterDecision(decision).phase;
  if (holding) {
    // An approval about a held receiver: the call's own judgement (target, rule version) is
    // unchanged; an approval adds the receiver to what this call may reach.
    if (next === 'approved')
      return {
        ...rest,
        phase: 'approved',
        grants: [...(grants ?? []), ...grantOf(holding.target)],
        ...(holding.resume !== undefined ? { resume: holding.resume } : {}),
      };
    return {
      ...rest,
      phase: next,
      holding,
      ...(grants ? { grants } : {}),
      ...(reason ? { denyReason: reason } : {}),
    };
  }
  // An approval of the call itself covers the target it named, and only that one.
  if (next === 'approved')
    return { ...rest, phase: 'approved', ruleVersion, grants: grantOf(p.target) };
  return { ...rest, phase: next, ruleVersion, ...(reason ? { denyReason: reason } : {}) };
}

/** A target without an origin (an MCP call, a page Keel cannot name) grants nothing. */
function grantOf(target: ToolTarget): ReceiverGrant[] {
  if (target.origin === undefined) return [];
  return [
    {
      origin: target.origin,
      ...(target.alwaysAsk !== undefined ? { alwaysAsk: target.alwaysAsk } : {}),
    },
  ];
}

/** A question's answer arrived with nobody waiting in memory: the tool step turns it into the result. */
export function answeredCall(p: PreparedToolCall, interactionId: string): PreparedToolCall {
  return {
    toolCallId: p.toolCallId,
    nodeId: p.nodeId,
    name: p.name,
    params: p.params,
    attempts: p.attempts,
    phase: 'answered',
    interactionId,
  };
}

/** The call starts (phase `executing`, attempt counted before the effect). */
export function startedCall(
  prev: PreparedToolCall | undefined,
  base: { toolCallId: string; nodeId: string; name: string },
  params: unknown,
  target: ToolTarget,
): PreparedToolCall {
  return {
    ...base,
    params,
    target,
    phase: 'executing',
    attempts: (prev?.attempts ?? 0) + 1,
    ...(prev?.ruleVersion !== undefined ? { ruleVersion: prev.ruleVersion } : {}),
    ...(prev?.descriptorDigest !== undefined ? { descriptorDigest: prev.descriptorDigest } : {}),
    ...(prev?.approvalId !== undefined ? { approvalId: prev.approvalId } : {}),
    ...(prev?.approvalDigest !== undefined ? { approvalDigest: prev.approvalDigest } : {}),
    ...(prev?.interactionId !== undefined ? { interactionId: prev.interactionId } : {}),
    ...(prev?.grants !== undefined ? { grants: prev.grants } : {}),
    ...(prev?.resume !== undefined ? { resume: prev.resume } : {}),
  };
}

/**
 * The user's answer about an uncertain write (`afterUncertainResolution`). A retry goes back
 * through the dispatch re-check: what the call was judged on is kept, and anything unknown (a
 * call started without a judgement on record) reads as changed, so it is judged afresh.
 */
export function resolvedCall(
  p: PreparedToolCall,
  resolution: 'retry' | 'mark_done' | 'fail',
): PreparedToolCall {
  const next = afterUncertainResolution(resolution).phase;
  const base = {
    toolCallId: p.toolCallId,
    nodeId: p.nodeId,
    name: p.name,
    params: p.params,
    attempts: p.attempts,
  };
  if (next === 'approved') {
    return {
      ...base,
      phase: 'approved',
      target: p.target ?? {},
      ruleVersion: p.ruleVersion ?? -1,
      descriptorDigest: p.descriptorDigest ?? '',
      ...(p.approvalId ? { approvalId: p.approvalId } : {}),
      ...(p.approvalDigest ? { approvalDigest: p.approvalDigest } : {}),
      ...(p.grants ? { grants: p.grants } : {}),
    };
  }
  return { ...base, phase: next, ...(p.target ? { target: p.target } : {}) };
}
