import { RUN_STATE_TRAITS, type Decision, type RunState, type StopReason } from '../../protocol';
import type { NormalizedStopReason } from '../../providers/types';
import type { PreparedToolCall, RunRecord } from '../../store/records';

/**
 * The Run state machine of spec/001 §5, in one place. The predicates say what a state allows;
 * the transitions are pure decisions returning a union, so each step computes its transition
 * first, applies it in one commit (`moveRun`, run-edges.ts, the only writer of `run.state`), then
 * emits. Every transition says the state it goes to (`to`); the edge map asserts each one.
 *
 * Invariant (spec/001 §3): every transition that ends or pauses a turn early applies
 * `materializeAdmittedSteers` at the safe leaf in the same commit, BEFORE it writes the state, so
 * an acknowledged steer is never left in a run nobody will drive again. The one pause that keeps
 * them pending is `user_control` (take-over.ts): that run is driven again after the hand back, and
 * an interrupt while the user holds the page materializes them like any other.
 */

// ---------------------------------------------------------------------------------------------
// State predicates: read from the one table of traits (src/protocol/run-states.ts).

/** The run is working or waiting inside its turn: a new submit is `busy` (steer or queue instead). */
export const isBusy = (state: RunState): boolean => RUN_STATE_TRAITS[state].busy;

/** A steer may join the run (paused runs cannot take one: the steer would wait for nobody). */
export const isSteerable = (state: RunState): boolean => RUN_STATE_TRAITS[state].steerable;

/** The run waits for the user: driving it does nothing until an op moves it on. */
export const isWaiting = (state: RunState): boolean => RUN_STATE_TRAITS[state].waiting;

/** A paused run a new turn (submit, branch selection) may replace; it ends `completed`. */
export const isSupersedable = (state: RunState): boolean => RUN_STATE_TRAITS[state].supersedable;

/** The run is the thread's current run (the store queries by the same table). */
export const isCurrent = (state: RunState): boolean => RUN_STATE_TRAITS[state].current;

/** The run will never change again. */
export const isTerminal = (state: RunState): boolean => RUN_STATE_TRAITS[state].terminal;

/** The driver steps the run (the other current states wait for an op). */
export const isDriven = (state: RunState): boolean => RUN_STATE_TRAITS[state].driven;

/** Error codes a `run.resume` cannot fix: the world changed, or the user said the action failed. */
const FINAL_ERRORS = new Set(['environment_drift', 'user_failed']);

/** `run.resume` may continue the run from its last checkpoint. */
export function isResumable(run: Pick<RunRecord, 'state' | 'error' | 'env'>): boolean {
  if (!run.env || !RUN_STATE_TRAITS[run.state].resumable) return false;
  return !isTerminal(run.state) || !FINAL_ERRORS.has(run.error?.code ?? '');
}

// ---------------------------------------------------------------------------------------------
// Transitions

/** How a turn ends: the terminal (or pausing) state with its stop reason. */
export interface End {
  kind: 'end';
  to: 'completed' | 'failed';
  stopReason: StopReason;
  error?: { code: string; message: string };
}

export interface ModelAgain {
  kind: 'model_again';
  to: 'streaming_model';
  /** The round the next request belongs to (only a planning round's <no_tool> sets one). */
  round?: 'continuation';
}

export type AfterAssistant =
  | { kind: 'execute_tools'; to: 'executing_tool' }
  | ModelAgain
  /** The calls of this message must not run: each gets an invalid result (why), then `next`. */
  | { kind: 'close_calls'; why: string; next: ModelAgain | End }
  | End;

export interface AssistantFacts {
  /** The round of the request ('plan' and 'continuation' offer no tools). */
  round: 'plan' | 'continuation' | undefined;
  stop: NormalizedStopReason;
  callCount: number;
  /** The breaker disabled tools: this was the final reply without tools. */
  toolsDisabled: boolean;
  /** Acked steers waiting for the next request (admitted after this request's cutoff). */
  pendingSteers: number;
  /** A planning round's tag. */
  intent: 'need_tool' | 'no_tool' | null;
}

/** Map a final provider stop reason onto the turn's stop reason. */
export function turnStopReason(stop: NormalizedStopReason): StopReason {
  switch (stop) {
    case 'end':
    case 'tool_use':
      return 'end';
    case 'max_tokens':
    case 'content_filter':
    case 'refusal':
      return stop;
    case 'error':
      return 'error';
  }
}

const MODEL_AGAIN: ModelAgain = { kind: 'model_again', to: 'streaming_model' };

function endFor(stop: NormalizedStopReason): End {
  return stop === 'error'
    ? { kind: 'end', to: 'failed', stopReason: 'error' }
    : { kind: 'end', to: 'completed', stopReason: turnStopReason(stop) };
}

/**
 * What follows a committed model message (spec/001 §1–3):
 * - calls run only from a `tool_use` message of a round that offers tools; calls anywhere else
 *   are closed before any side effect (tool-less rounds, the breaker's final reply, a truncated
 *   or non-tool_use message: fail closed, spec/001 §2);
 * - an acked steer keeps the turn going whatever round it arrived in — checked before the round
 *   and the breaker, or the steer would be dropped with the turn;
 * - a planning round goes on to the real work (a continuation round after <no_tool>);
 * - otherwise the turn ends with the provider's stop reason.
 */
export function afterAssistant(f: AssistantFacts): AfterAssistant {
  const steered = f.pendingSteers > 0;
  const failed = f.stop === 'error';
  const toolsOffered = !f.round && !f.toolsDisabled;
  let next: ModelAgain | End;
  if (
    f.round === 'plan' &&
    !failed &&
    f.stop !== 'max_tokens' &&
    f.stop !== 'content_filter' &&
    f.stop !== 'refusal'
  ) {
    next =
      f.intent === 'no_tool' && !steered
        ? { kind: 'model_again', to: 'streaming_model', round: 'continuation' }
        : MODEL_AGAIN;
  } else if (steered && !failed) {
    next = MODEL_AGAIN;
  } else if (f.toolsDisabled && !f.round && !failed) {
    next = { kind: 'end', to: 'completed', stopReason: 'tool_failures' };
  } else {
    next = endFor(f.stop);
  }
  if (f.callCount === 0) return next;
  if (toolsOffered && f.stop === 'tool_use') return { kind: 'execute_tools', to: 'executing_tool' };
  if (!toolsOffered) {
    const why = f.round
      ? 'Not executed: tools are not available in this round.'
      : 'Not executed: tools are disabled after repeated failures.';
    return { kind: 'close_calls', why, next };
  }
  // Tool calls with a non-tool_use stop: the calls may be incomplete (spec/001 §2).
  const why = `Not executed: the response ended with "${f.stop}" instead of a tool call, so the call may be incomplete.`;
  if (f.stop === 'max_tokens')
    return {
      kind: 'close_calls',
      why,
      next: steered ? MODEL_AGAIN : { kind: 'end', to: 'completed', stopReason: 'max_tokens' },
    };
  return {
    kind: 'close_calls',
    why,
    next: {
      kind: 'end',
      to: 'failed',
      stopReason: 'error',
      error: {
        code: 'protocol_error',
        message: `The model requested tools but its response ended with "${f.stop}"; nothing was executed.`,
      },
    },
  };
}

/** How a finished call moves the failure breaker: user and policy denials are neutral. */
export type FailureEffect = 'success' | 'failure' | 'neutral';

export const WARN_AFTER = 3;
export const DISABLE_AFTER = 5;

export interface ToolResultFacts {
  failure: FailureEffect;
  consecutiveFailures: number;
  toolsDisabled: boolean;
  /** Index of the call just finished, and the batch size. */
  index: number;
  total: number;
  /** The call's outcome ends the turn (deny_stop, an uncertain call marked failed). */
  end?: End;
}

export type AfterToolResult = {
  /** The breaker after this call. */
  failures: number;
  toolsDisabled: boolean;
  /** Notices for the model: the warning at 3 failures, the breaker at 5. */
  warn: boolean;
  disabledNow: boolean;
} & (
  | { kind: 'next_call'; to: 'executing_tool' }
  | ModelAgain
  /** The rest of the batch is not run: each call gets an invalid result (why), then `next`. */
  | { kind: 'close_calls'; why: string; next: ModelAgain | End }
  | End
);

/**
 * What follows a recorded tool result (spec/001 §1): success resets the breaker, a failure counts,
 * denials are neutral. 3 failures in a row warn the model; 5 disable tools for one final reply
 * (the rest of the batch is closed). A call whose outcome ends the turn closes the rest too.
 */
export function afterToolResult(f: ToolResultFacts): AfterToolResult {
  const failures =
    f.failure === 'success'
      ? 0
      : f.failure === 'failure'
        ? f.consecutiveFailures + 1
        : f.consecutiveFailures;
  const warn = f.failure === 'failure' && failures === WARN_AFTER;
  const disabledNow = f.failure === 'failure' && failures >= DISABLE_AFTER && !f.toolsDisabled;
  const toolsDisabled = f.toolsDisabled || disabledNow;
  const breaker = { failures, toolsDisabled, warn, disabledNow };
  const rest = f.total - f.index - 1;
  if (f.end)
    return rest > 0
      ? { ...breaker, kind: 'close_calls', why: 'Not executed: the turn was stopped.', next: f.end }
      : { ...breaker, ...f.end };
  if (toolsDisabled && rest > 0)
    return {
      ...breaker,
      kind: 'close_calls',
      why: 'Not executed: tools were disabled after repeated failures.',
      next: MODEL_AGAIN,
    };
  return rest > 0
    ? { ...breaker, kind: 'next_call', to: 'executing_tool' }
    : { ...breaker, ...MODEL_AGAIN };
}

export type CutoffDecision =
  | { kind: 'call'; attempt: number }
  | { kind: 'budget_pause'; to: 'budget_paused'; budget: number }
  | { kind: 'attempts_exhausted'; to: 'failed'; error: { code: string; message: string } };

/**
 * The cutoff of one model request (spec/001 §1, §3): the token budget is checked after the first
 * call of the turn (or of its last resume); the attempt is counted before the call, so a crash
 * loop cannot reset it. Either way the admitted steers are materialized first.
 */
export function cutoffDecision(f: {
  tokenBudget: number | null;
  modelCalls: number;
  usedSinceBaseline: number;
  attempts: number;
  maxAttempts: number;
}): CutoffDecision {
  if (f.tokenBudget !== null && f.modelCalls > 0 && f.usedSinceBaseline >= f.tokenBudget)
    return { kind: 'budget_pause', to: 'budget_paused', budget: f.tokenBudget };
  const attempt = f.attempts + 1;
  if (attempt > f.maxAttempts) {
    return {
      kind: 'attempts_exhausted',
      to: 'failed',
      error: {
        code: 'model_failed',
        message: `The model call failed ${f.maxAttempts} times; the run stopped. Retry with Continue or a new message.`,
      },
    };
  }
  return { kind: 'call', attempt };
}

export type ProviderFailure =
  | { kind: 'retry'; attempt: number; of: number }
  | { kind: 'fail'; to: 'failed'; error: { code: string; message: string } };

/** A failed model attempt: retried from the checkpoint while attempts remain and the error may pass. */
export function onProviderFailure(f: {
  code: string;
  message: string;
  retryable: boolean;
  attempts: number;
  maxAttempts: number;
}): ProviderFailure {
  if (f.retryable && f.code !== 'aborted' && f.attempts < f.maxAttempts)
    return { kind: 'retry', attempt: f.attempts + 1, of: f.maxAttempts };
  return { kind: 'fail', to: 'failed', error: { code: f.code, message: f.message } };
}

/** The phase an approval decision moves the parked call to (committed with the decision). */
export function afterDecision(decision: Decision): {
  phase: 'approved' | 'denied' | 'denied_stop';
  to: 'executing_tool';
} {
  // A denial is recorded by the tool step (the call's result says so), so every decision runs it.
  const to = 'executing_tool';
  if (decision === 'deny') return { phase: 'denied', to };
  if (decision === 'deny_stop') return { phase: 'denied_stop', to };
  return { phase: 'approved', to };
}

/** An answer to a tool's question: the tool step takes it up (or the live tool, elicitation). */
export function afterAnswer(): { to: 'executing_tool' } {
  return { to: 'executing_tool' };
}

/** The phase the user's answer for an uncertain write moves the call to. */
export function afterUncertainResolution(resolution: 'retry' | 'mark_done' | 'fail'): {
  phase: 'approved' | 'resolved_done' | 'resolved_failed';
  to: 'executing_tool';
} {
  const to = 'executing_tool';
  // 'retry' goes through the dispatch-time re-check (same origin, rule, tool) before running.
  if (resolution === 'retry') return { phase: 'approved', to };
  return { phase: resolution === 'mark_done' ? 'resolved_done' : 'resolved_failed', to };
}

export type Interrupt =
  | { kind: 'noop' }
  | {
      kind: 'interrupt';
      /** Calls of the batch not yet recorded, each with its result text (the one running first). */
      close: { index: number; why: string }[];
      cancelApproval?: string;
      cancelInteraction?: string;
    };

type BatchFacts = {
  state: RunState;
  toolCalls: { id: string }[];
  nextToolIndex: number;
  pendingTool?: Pick<PreparedToolCall, 'toolCallId' | 'phase'>;
};

/**
 * The calls of the current batch that have no result yet, when a run stops mid-batch: each must
 * be closed (one result per call) before anything else is written, so the leaf is safe again — no
 * user message may land between a tool_call and its result. `running` is the text for the call
 * that may have had an effect; `pending` for the ones that certainly did not.
 */
export function openBatch(
  f: BatchFacts,
  texts: { running: string; pending: string },
): { index: number; why: string }[] {
  if (!RUN_STATE_TRAITS[f.state].inBatch) return [];
  return f.toolCalls.slice(f.nextToolIndex).map((c, i) => {
    const running = f.pendingTool?.toolCallId === c.id && f.pendingTool.phase === 'executing';
    return { index: f.nextToolIndex + i, why: running ? texts.running : texts.pending };
  });
}

/**
 * An interrupt (spec/001 §3) keeps what was committed: the call in flight gets an "interrupted"
 * result (with its partial progress) and the rest of its batch "not executed"; a pending approval
 * or question is withdrawn. Always allowed; a finished run is left alone.
 */
export function onInterrupt(
  f: BatchFacts & {
    pendingTool?: Pick<PreparedToolCall, 'approvalId' | 'interactionId'>;
    partial?: string;
  },
): Interrupt {
  // Only a working run stops: paused runs are already stopped, finished and queued ones never ran.
  if (!isSteerable(f.state)) return { kind: 'noop' };
  const close = openBatch(f, {
    running: `Interrupted by the user while running.${f.partial ? ` Partial progress: ${f.partial}` : ''} The action may have been partly done; check before repeating it.`,
    pending: 'Not executed: the user interrupted the turn.',
  });
  return {
    kind: 'interrupt',
    close,
    ...(f.pendingTool?.approvalId ? { cancelApproval: f.pendingTool.approvalId } : {}),
    ...(f.pendingTool?.interactionId ? { cancelInteraction: f.pendingTool.interactionId } : {}),
  };
}

/** The texts for calls left open when a run fails mid-batch (an internal error, drift on recovery). */
export const FAILED_BATCH_TEXTS = {
  running:
    'The run failed while this was running: the action may have been partly done; check before repeating it.',
  pending: 'Not executed: the run failed.',
};

export type Resume =
  | { kind: 'reject'; message: string }
  | { kind: 'continue'; to: 'streaming_model' };

/**
 * `run.resume`: a resumable run goes on with the model, from its last checkpoint. Every way a run
 * stops closes its batch first (an interrupt and a failure give the open calls results, the
 * budget is checked between batches), so a stopped run's cursor is never inside a batch; a record
 * that says otherwise was not written by this machine and is refused, not guessed at.
 */
export function onResume(run: Pick<RunRecord, 'state' | 'error' | 'env' | 'stepCursor'>): Resume {
  if (!isResumable(run))
    return { kind: 'reject', message: `A run in state ${run.state} cannot be continued.` };
  if (run.stepCursor.nextToolIndex < run.stepCursor.toolCalls.length)
    return {
      kind: 'reject',
      message:
        'This task stopped in the middle of a batch of tool calls and cannot be continued. Send a new message instead.',
    };
  return { kind: 'continue', to: 'streaming_model' };
}

/** What the driver does with a run in each state. */
export function driveAction(state: RunState): 'model' | 'tool' | 'parked' | 'ended' {
  if (isDriven(state)) return state === 'streaming_model' ? 'model' : 'tool';
  return isWaiting(state) ? 'parked' : 'ended';
}
