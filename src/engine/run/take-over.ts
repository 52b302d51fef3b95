import type { RejectCode, RunState } from '../../protocol';
import type { PreparedToolCall, RunRecord } from '../../store/records';
import { isDriven, openBatch } from './run-machine';

/**
 * Take over and hand back (issue 28), as pure decisions. The user may take the page from a
 * working run at any time; the run does not stop where it is but at its next safe point, so the
 * history never holds a half-done call:
 *
 * - the op only records the request (`run.takeOver`), durably: a restart before the safe point
 *   still pauses there;
 * - a model stream in flight is let finish. Cutting it (as interrupt does) would lose the reply
 *   and any calls it was writing, and a streaming model does not touch the page anyway;
 * - a tool call already running finishes and its result is recorded first; so does a call whose
 *   outcome needs no page (an answered question, a denial, a restart's recovery of an executing
 *   call);
 * - the calls of the batch that have not started are closed "not executed": they were planned for
 *   a page the user is about to change, so the model re-plans after the hand back instead;
 * - acknowledged steers stay pending: the model reads them after the hand back, with the note.
 */

export type TakeOverAdmission =
  /** A working run: record the request; the driver pauses at the next safe point. */
  | { kind: 'request' }
  /** Already requested, or already held: nothing changes (the op is acknowledged). */
  | { kind: 'already' }
  | {
      kind: 'reject';
      code: Extract<RejectCode, 'no_active_turn' | 'not_running'>;
      message: string;
    };

/** `run.takeOver` on the thread's current run (undefined: the thread has none). */
export function admitTakeOver(
  run: Pick<RunRecord, 'state' | 'takeOver'> | undefined,
): TakeOverAdmission {
  if (!run) return { kind: 'reject', code: 'no_active_turn', message: 'No task is running here.' };
  if (run.state === 'user_control' || (run.takeOver && isDriven(run.state)))
    return { kind: 'already' };
  if (isDriven(run.state)) return { kind: 'request' };
  return {
    kind: 'reject',
    code: 'not_running',
    message: `The task is not working (${run.state}): there is nothing to take over. Answer its card, or continue it first.`,
  };
}

/** The text of a call closed because the user took the page before it ran. */
export const TAKEN_OVER_PENDING =
  'Not executed: the user took over the page before this call ran. The page may have changed; look again before you act.';

export type SafePoint =
  | { kind: 'not_yet' }
  /** Pause now: close these calls of the batch (none started), then rest in user_control. */
  | { kind: 'pause'; to: 'user_control'; close: { index: number; why: string }[] };

/**
 * At the driver's step boundary (the previous step committed): is this a safe point to give the
 * page to the user? Only for a working run with a request. Inside a batch, the call at the cursor
 * must not have begun: a call the user approved but that has not run yet is closed with the rest
 * (it was approved for the page as it was); any other phase records its result first.
 */
export function takeOverPoint(f: {
  state: RunState;
  takeOver: boolean;
  toolCalls: { id: string }[];
  nextToolIndex: number;
  pendingTool?: Pick<PreparedToolCall, 'toolCallId' | 'phase'>;
}): SafePoint {
  if (!f.takeOver || !isDriven(f.state)) return { kind: 'not_yet' };
  const atCursor = f.toolCalls[f.nextToolIndex];
  const begun =
    f.state === 'executing_tool' &&
    !!atCursor &&
    f.pendingTool?.toolCallId === atCursor.id &&
    f.pendingTool.phase !== 'approved';
  if (begun) return { kind: 'not_yet' };
  return {
    kind: 'pause',
    to: 'user_control',
    close: openBatch(f, { running: TAKEN_OVER_PENDING, pending: TAKEN_OVER_PENDING }),
  };
}

export type HandBack =
  /** The user held the page: the run goes on with the model (the note joins the steers). */
  | { kind: 'hand_back'; to: 'streaming_model' }
  /** Take over was pressed but the run had not paused yet: the request is withdrawn. */
  | { kind: 'withdraw' }
  | { kind: 'reject'; code: Extract<RejectCode, 'no_active_turn' | 'not_held'>; message: string };

/** `run.handBack` on the thread's current run (undefined: the thread has none). */
export function onHandBack(run: Pick<RunRecord, 'state' | 'takeOver'> | undefined): HandBack {
  if (!run) return { kind: 'reject', code: 'no_active_turn', message: 'No task is running here.' };
  if (run.state === 'user_control') return { kind: 'hand_back', to: 'streaming_model' };
  if (run.takeOver && isDriven(run.state)) return { kind: 'withdraw' };
  return {
    kind: 'reject',
    code: 'not_held',
    message: `You do not hold the page: the task is ${run.state}.`,
  };
}
