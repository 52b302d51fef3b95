import type { ContentBlock, ToolCallState } from '../../protocol';
import type { FailureEffect } from '../run/run-machine';
import { text } from '../run/tool-call-node';

/** How a call ends: its card's state, its result, and how it moves the failure breaker. */
export interface Finish {
  callState: ToolCallState;
  ok: boolean;
  outcome: 'ok' | 'error' | 'denied' | 'interrupted' | 'invalid' | 'lost' | 'marked_done';
  content: ContentBlock[];
  details?: unknown;
  failure: FailureEffect;
  /** Attempts of a retry-safe call that failed transiently before this result (spec/004). */
  attempts?: number;
  /** End the turn after recording this call (deny_stop, or the user marking an uncertain call failed). */
  end?: FinishEnd;
}

export interface FinishEnd {
  state: 'completed' | 'failed';
  stopReason: 'interrupted' | 'error';
  notice: { code: string; text: string };
  error?: { code: string; message: string };
}

/**
 * The ways a call ends, one constructor each, so no exit hand-fills `callState / ok / outcome /
 * failure`. Denials (by the user or a rule) are neutral for the breaker: the model did nothing
 * wrong; invalid calls count as failures unless the world changed under them.
 */
export const Finishes = {
  /** Refused before it ran: the user or a rule said no (`end` when the user stopped the turn). */
  denied(message: string, end?: FinishEnd): Finish {
    return {
      callState: 'rejected',
      ok: false,
      outcome: 'denied',
      content: text(message),
      failure: 'neutral',
      ...(end ? { end } : {}),
    };
  },
  /** Not run: the call itself is wrong (unknown tool, bad arguments) or stale (`neutral`). */
  invalid(
    message: string,
    o: { outcome?: 'invalid' | 'error'; failure?: FailureEffect } = {},
  ): Finish {
    return {
      callState: 'invalid',
      ok: false,
      outcome: o.outcome ?? 'invalid',
      content: text(message),
      failure: o.failure ?? 'failure',
    };
  },
  /** Its outcome is gone (an answer lost to a restart, a crash loop): `invalid` card when it never ran. */
  lost(message: string, o: { ran: boolean; failure: FailureEffect }): Finish {
    return {
      callState: o.ran ? 'result' : 'invalid',
      ok: false,
      outcome: 'lost',
      content: text(message),
      failure: o.failure,
    };
  },
  /** It ran (or tried to) and failed. */
  failed(
    content: string | ContentBlock[],
    o: { failure?: FailureEffect; attempts?: number; details?: unknown; end?: FinishEnd } = {},
  ): Finish {
    return {
      callState: 'result',
      ok: false,
      outcome: 'error',
      content: typeof content === 'string' ? text(content) : content,
      failure: o.failure ?? 'failure',
      ...(o.details !== undefined ? { details: o.details } : {}),
      ...(o.attempts !== undefined ? { attempts: o.attempts } : {}),
      ...(o.end ? { end: o.end } : {}),
    };
  },
  /** It ran and succeeded (`marked_done`: the user confirmed an uncertain one did). */
  done(
    content: string | ContentBlock[],
    o: {
      failure?: FailureEffect;
      attempts?: number;
      details?: unknown;
      outcome?: 'ok' | 'marked_done';
    } = {},
  ): Finish {
    return {
      callState: 'result',
      ok: true,
      outcome: o.outcome ?? 'ok',
      content: typeof content === 'string' ? text(content) : content,
      failure: o.failure ?? 'success',
      ...(o.details !== undefined ? { details: o.details } : {}),
      ...(o.attempts !== undefined ? { attempts: o.attempts } : {}),
    };
  },
};
