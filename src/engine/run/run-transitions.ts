import type { RunState } from '../../protocol';

/**
 * The table of the Run state machine (run-machine.ts): every edge, with the event and the pure
 * function (or op) that decides it.
 */
export interface RunTransition {
  from: RunState | 'new';
  event: string;
  to: RunState;
  /** The pure function (or op) that decides it. */
  by: string;
}

/**
 * Every edge of the machine. Shown in docs/recovery.md and docs/architecture.md; the table tests
 * check that each edge a transition function returns is listed here, and each listed edge is
 * reached by some test input.
 */
export const RUN_TRANSITIONS: readonly RunTransition[] = [
  { from: 'new', event: 'submit', to: 'streaming_model', by: 'turn.submit' },
  { from: 'new', event: 'enqueue', to: 'queued', by: 'turn.enqueue' },
  { from: 'new', event: 'workflow run', to: 'streaming_model', by: 'workflow.run' },
  { from: 'new', event: 'scheduled workflow fire, thread busy', to: 'queued', by: 'workflow.run' },
  { from: 'queued', event: 'queued start', to: 'streaming_model', by: 'startNextQueued' },
  {
    from: 'queued',
    event: 'start refused (no provider, too large)',
    to: 'failed',
    by: 'startNextQueued',
  },
  {
    from: 'streaming_model',
    event: 'tool_use message',
    to: 'executing_tool',
    by: 'afterAssistant',
  },
  {
    from: 'streaming_model',
    event: 'planning round / steer pending',
    to: 'streaming_model',
    by: 'afterAssistant',
  },
  { from: 'streaming_model', event: 'final message', to: 'completed', by: 'afterAssistant' },
  {
    from: 'streaming_model',
    event: 'stop error / calls without tool_use',
    to: 'failed',
    by: 'afterAssistant',
  },
  {
    from: 'streaming_model',
    event: 'token budget used',
    to: 'budget_paused',
    by: 'cutoffDecision',
  },
  { from: 'streaming_model', event: 'attempts exhausted', to: 'failed', by: 'cutoffDecision' },
  {
    from: 'streaming_model',
    event: 'retryable provider error',
    to: 'streaming_model',
    by: 'onProviderFailure',
  },
  { from: 'streaming_model', event: 'provider error', to: 'failed', by: 'onProviderFailure' },
  { from: 'streaming_model', event: 'interrupt', to: 'interrupted', by: 'onInterrupt' },
  { from: 'streaming_model', event: 'environment drift on recovery', to: 'failed', by: 'recovery' },
  // A workflow run in replay mode (src/engine/workflow-step.ts) decides without the model.
  {
    from: 'streaming_model',
    event: 'replay: a snapshot or a step to act',
    to: 'executing_tool',
    by: 'decideReplay',
  },
  {
    from: 'streaming_model',
    event: 'replay: final check passed',
    to: 'completed',
    by: 'decideReplay',
  },
  {
    from: 'streaming_model',
    event: 'replay diverged, no model (or onDivergence stop)',
    to: 'failed',
    by: 'decideReplay',
  },
  {
    from: 'streaming_model',
    event: 'replay diverged or steered: the model takes over',
    to: 'streaming_model',
    by: 'decideReplay',
  },
  {
    from: 'executing_tool',
    event: 'call recorded, more in batch',
    to: 'executing_tool',
    by: 'afterToolResult',
  },
  {
    from: 'executing_tool',
    event: 'batch done / breaker',
    to: 'streaming_model',
    by: 'afterToolResult',
  },
  { from: 'executing_tool', event: 'deny_stop recorded', to: 'completed', by: 'afterToolResult' },
  {
    from: 'executing_tool',
    event: 'uncertain call marked failed',
    to: 'failed',
    by: 'afterToolResult',
  },
  { from: 'executing_tool', event: 'gatekeeper asks', to: 'waiting_approval', by: 'beginApproval' },
  {
    from: 'executing_tool',
    event: 'ask_user / elicitation',
    to: 'waiting_interaction',
    by: 'beginInteraction',
  },
  {
    from: 'executing_tool',
    event: 'write of unknown outcome after restart',
    to: 'paused_uncertain',
    by: 'tool recovery policy',
  },
  { from: 'executing_tool', event: 'interrupt', to: 'interrupted', by: 'onInterrupt' },
  { from: 'executing_tool', event: 'environment drift on recovery', to: 'failed', by: 'recovery' },
  { from: 'waiting_approval', event: 'decision', to: 'executing_tool', by: 'afterDecision' },
  { from: 'waiting_approval', event: 'interrupt', to: 'interrupted', by: 'onInterrupt' },
  {
    from: 'waiting_approval',
    event: 'environment drift on recovery',
    to: 'failed',
    by: 'recovery',
  },
  {
    from: 'waiting_interaction',
    event: 'answer',
    to: 'executing_tool',
    by: 'interaction.response',
  },
  { from: 'waiting_interaction', event: 'interrupt', to: 'interrupted', by: 'onInterrupt' },
  {
    from: 'waiting_interaction',
    event: 'environment drift on recovery',
    to: 'failed',
    by: 'recovery',
  },
  {
    from: 'paused_uncertain',
    event: 'retry / mark_done / fail',
    to: 'executing_tool',
    by: 'afterUncertainResolution',
  },
  { from: 'budget_paused', event: 'resume', to: 'streaming_model', by: 'onResume' },
  { from: 'budget_paused', event: 'superseded by a new turn', to: 'completed', by: 'supersede' },
  { from: 'interrupted', event: 'resume', to: 'streaming_model', by: 'onResume' },
  { from: 'interrupted', event: 'resume mid-batch', to: 'executing_tool', by: 'onResume' },
  { from: 'interrupted', event: 'superseded by a new turn', to: 'completed', by: 'supersede' },
  {
    from: 'failed',
    event: 'resume (not drift, not user_failed)',
    to: 'streaming_model',
    by: 'onResume',
  },
  { from: 'failed', event: 'resume mid-batch', to: 'executing_tool', by: 'onResume' },
];

/** The table as Markdown (docs/recovery.md and docs/architecture.md carry it; a test keeps them in step). */
export function transitionTableMarkdown(): string {
  const rows = RUN_TRANSITIONS.map(
    (t) => `| \`${t.from}\` | ${t.event} | \`${t.to}\` | \`${t.by}\` |`,
  );
  return ['| from | event | to | decided by |', '|---|---|---|---|', ...rows].join('\n');
}
