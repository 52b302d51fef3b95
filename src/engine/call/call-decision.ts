import type { DispatchRecheck } from '../../gatekeeper/dispatch-recheck';
import type { Verdict } from '../../gatekeeper/verdict';
import type { Decision, ToolEffects } from '../../protocol';
import type { PreparedPhase, PreparedToolCall } from '../../store/records';
import type { ToolDescriptor } from '../../tools/types';
import { type Finish, Finishes } from './call-finish';

/** Starts of one call across restarts before recovery gives up on it. */
export const MAX_TOOL_ATTEMPTS = 3;

/** What the tool step knows about the call at the cursor, before any effect. */
export interface CallFacts {
  name: string;
  /** Registered, and in the run's catalog. */
  known: boolean;
  /** The run's catalog, for the model when the tool is unknown. */
  catalog: string[];
  /** The registered descriptor differs from the one the run's catalog pinned. */
  changed: boolean;
  label: string;
  effects: ToolEffects;
  recovery: ToolDescriptor['recovery'] | undefined;
  /** The call's phase as persisted (`run.pendingTool`), if it got that far. */
  pending?: { phase: PreparedPhase } & Pick<
    PreparedToolCall,
    'denyReason' | 'holding' | 'attempts'
  >;
  /** Why the arguments cannot be used (bad JSON, too deep, the schema), or null. */
  invalid: string | null;
  /** The tool asks the user itself (ask_user): it parks on an interaction, not an approval. */
  interactive: boolean;
}

export type CallDecision =
  /** Record the call's end now (one place: finishCall). */
  | { kind: 'finish'; finish: Finish }
  /** Parked on the user already: nothing to do until an op moves the run. */
  | { kind: 'wait' }
  /** The user answered the tool's question (possibly across a restart): complete the call. */
  | { kind: 'answer' }
  /** A tool that asks the user: park on an interaction. */
  | { kind: 'interact' }
  /** A new valid call: resolve its target, then the Gatekeeper's verdict (`afterVerdict`). */
  | { kind: 'judge' }
  /** Cleared before (an approval, or a re-run after a restart): re-check at dispatch (`afterRecheck`). */
  | { kind: 'recheck' }
  /** A write of unknown outcome after a restart: the user decides (paused_uncertain). */
  | { kind: 'pause_uncertain' };

/**
 * What the tool step does with the call at the cursor (spec/001 §2, the recovery table of
 * docs/recovery.md). Unknown or changed tools never run; a phase persisted before a restart
 * resumes where it stood (a call that may have had an effect runs again only if that is safe,
 * and only so many times); a new call is validated before anything else.
 */
export function decideCall(f: CallFacts): CallDecision {
  if (!f.known) {
    const names = f.catalog.join(', ') || 'none';
    return finish(
      Finishes.invalid(`Unknown tool "${f.name}". Available tools: ${names}.`, {
        outcome: 'error',
      }),
    );
  }
  if (f.changed)
    return finish(
      Finishes.invalid(
        `Tool ${f.name} changed since this turn started and was not run. Ask the user to continue in a new message.`,
        { outcome: 'error', failure: 'neutral' },
      ),
    );
  const p = f.pending;
  if (p) {
    switch (p.phase) {
      case 'awaiting_approval':
      case 'awaiting_interaction':
        return { kind: 'wait' };
      case 'denied':
      case 'denied_stop': {
        const why = p.denyReason ? ` Their reason: ${p.denyReason}` : '';
        const held = p.holding;
        const what = held
          ? `The call was stopped before ${held.what}, and the user denied that, so it did not happen.${held.partial ? ` Before it stopped: ${held.partial}.` : ''}`
          : 'The user denied this call.';
        return finish(
          Finishes.denied(
            `${what}${why} Do not retry it; continue another way or ask the user.`,
            p.phase === 'denied_stop'
              ? {
                  state: 'completed',
                  stopReason: 'interrupted',
                  notice: {
                    code: 'deny_stop',
                    text: `You denied "${f.label}" and stopped the turn.`,
                  },
                }
              : undefined,
          ),
        );
      }
      case 'answered':
        return { kind: 'answer' };
      case 'approved':
        return { kind: 'recheck' };
      case 'resolved_done':
        return finish(
          Finishes.done('The user checked and confirmed this action completed.', {
            outcome: 'marked_done',
          }),
        );
      case 'resolved_failed':
        return finish(
          Finishes.failed('The user reported that this action did not complete.', {
            failure: 'neutral',
            end: {
              state: 'failed',
              stopReason: 'error',
              notice: {
                code: 'user_failed',
                text: `You marked "${f.label}" as failed; the turn stopped.`,
              },
              error: {
                code: 'user_failed',
                message: 'The user marked an uncertain action as failed.',
              },
            },
          }),
        );
      case 'executing':
        // Only reachable after a restart: the call may or may not have run. A crash loop must
        // not spin forever (the persisted counter survives every restart).
        if (p.attempts >= MAX_TOOL_ATTEMPTS)
          return finish(
            Finishes.lost(
              `This call was interrupted by ${p.attempts} restarts in a row and was not run again.`,
              { ran: true, failure: 'failure' },
            ),
          );
        // Reads and retry-safe tools run again — a new dispatch, re-checked like any cleared call.
        if (f.effects === 'read' || f.recovery === 'retry-safe') return { kind: 'recheck' };
        return { kind: 'pause_uncertain' };
    }
  }
  if (f.invalid) return finish(Finishes.invalid(f.invalid));
  return f.interactive ? { kind: 'interact' } : { kind: 'judge' };
}

function finish(f: Finish): CallDecision {
  return { kind: 'finish', finish: f };
}

export type DispatchDecision =
  | { kind: 'finish'; finish: Finish }
  | { kind: 'ask'; reason: string; options: Decision[] }
  | { kind: 'execute' };

/** A new call after the Gatekeeper's verdict: refused, asked about, or run. */
export function afterVerdict(v: Verdict): DispatchDecision {
  if (v.kind === 'deny')
    return { kind: 'finish', finish: Finishes.denied(`Not allowed: ${v.reason}`) };
  if (v.kind === 'ask') return { kind: 'ask', reason: v.reason, options: v.options };
  return { kind: 'execute' };
}

/**
 * A cleared call at dispatch (dispatch-recheck.ts): a target refused now stays refused; an
 * approval made under other conditions is asked again — except a re-run after a restart that the
 * rules now simply allow, which runs.
 */
export function afterRecheck(
  r: DispatchRecheck,
  o: { verdict: Verdict; phase: PreparedPhase },
): DispatchDecision {
  if (r.kind === 'deny') return { kind: 'finish', finish: Finishes.denied(`Not run: ${r.reason}`) };
  if (r.kind === 'ask') {
    if (o.verdict.kind === 'allow' && o.phase === 'executing') return { kind: 'execute' };
    return { kind: 'ask', reason: `changed:${r.drift}`, options: r.options };
  }
  return { kind: 'execute' };
}
