import type { PlannedToolCall, RunRecord } from '../../store/records';
import type { RegisteredTool } from '../../tools/registry';
import type { ToolCallInfo } from '../../tools/types';

/**
 * One tool call on its way through the tool step: what every phase (ask, execute, record) needs
 * to know about it, passed as one object instead of a row of positional parameters.
 */
export interface CallInFlight {
  /** The run as the step read it (phases re-read it inside their commits). */
  run: RunRecord;
  call: PlannedToolCall;
  reg: RegisteredTool;
  /** The call's parameters (validated, or as recorded in `pendingTool` after a restart). */
  params: unknown;
  /** Digest of the tool's descriptor, as the run's catalog pinned it. */
  dDigest: string;
  /** What the tool may know about the call (thread, run, tab, model). */
  info: ToolCallInfo;
  /** The run's signal: an interrupt aborts the call. */
  signal: AbortSignal;
}
