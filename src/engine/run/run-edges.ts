import type { RunState } from '../../protocol';

/**
 * The edge map of the Run state machine (spec/001 §5): for each function that decides a state
 * change, the edges it may take. `moveRun` — the only writer of `run.state` — asserts every state
 * change against this map, so the map is the machine, not a description of it: the docs' table
 * (`RUN_TRANSITIONS`, run-transitions.ts) is generated from it, and architecture.test.ts fails on
 * an assignment of a run's state anywhere else.
 *
 * `by` names a function of src (run-edges.test.ts checks each exists); `when` is the
 * event in words, for the table.
 */
interface EdgeRow {
  from: RunState | 'new';
  to: RunState;
  when: string;
}

export const RUN_EDGES = {
  submit: [{ from: 'new', to: 'streaming_model', when: 'submit' }],
  enqueue: [{ from: 'new', to: 'queued', when: 'enqueue' }],
  runWorkflow: [{ from: 'new', to: 'streaming_model', when: 'workflow run' }],
  callExternal: [
    { from: 'new', to: 'streaming_model', when: "an outside agent's call (MCP bridge)" },
  ],
  queueFire: [{ from: 'new', to: 'queued', when: 'scheduled workflow fire, thread busy' }],
  startNextQueued: [
    { from: 'queued', to: 'streaming_model', when: 'queued start' },
    { from: 'queued', to: 'failed', when: 'start refused (no provider, too large)' },
  ],
  afterAssistant: [
    { from: 'streaming_model', to: 'executing_tool', when: 'tool_use message' },
    { from: 'streaming_model', to: 'streaming_model', when: 'planning round / steer pending' },
    { from: 'streaming_model', to: 'completed', when: 'final message' },
    { from: 'streaming_model', to: 'failed', when: 'stop error / calls without tool_use' },
  ],
  cutoffDecision: [
    { from: 'streaming_model', to: 'budget_paused', when: 'token budget used' },
    { from: 'streaming_model', to: 'failed', when: 'attempts exhausted' },
  ],
  onProviderFailure: [
    { from: 'streaming_model', to: 'failed', when: 'provider error, not retried' },
  ],
  failRun: [
    { from: 'streaming_model', to: 'failed', when: 'no provider / internal error' },
    { from: 'executing_tool', to: 'failed', when: 'internal error' },
  ],
  onInterrupt: [
    { from: 'streaming_model', to: 'interrupted', when: 'interrupt' },
    { from: 'executing_tool', to: 'interrupted', when: 'interrupt' },
    { from: 'waiting_approval', to: 'interrupted', when: 'interrupt' },
    { from: 'waiting_interaction', to: 'interrupted', when: 'interrupt' },
    { from: 'user_control', to: 'interrupted', when: 'interrupt while the user holds the page' },
  ],
  recoverRuns: [
    { from: 'streaming_model', to: 'failed', when: 'environment drift on recovery' },
    { from: 'executing_tool', to: 'failed', when: 'environment drift on recovery' },
    { from: 'waiting_approval', to: 'failed', when: 'environment drift on recovery' },
    { from: 'waiting_interaction', to: 'failed', when: 'environment drift on recovery' },
  ],
  // A workflow run in replay mode (src/engine/workflow/workflow-step.ts) decides without the model.
  decideReplay: [
    { from: 'streaming_model', to: 'executing_tool', when: 'replay: a snapshot or a step to act' },
    { from: 'streaming_model', to: 'completed', when: 'replay: final check passed' },
    {
      from: 'streaming_model',
      to: 'failed',
      when: 'replay diverged, no model (or onDivergence stop)',
    },
    {
      from: 'streaming_model',
      to: 'streaming_model',
      when: 'replay diverged or steered: the model takes over',
    },
  ],
  // An outside agent's call (src/engine/workflow/external-step.ts): one call, then done.
  decideExternal: [
    { from: 'streaming_model', to: 'executing_tool', when: 'external: the call is planned' },
    { from: 'streaming_model', to: 'completed', when: 'external: the call is recorded' },
  ],
  afterToolResult: [
    { from: 'executing_tool', to: 'executing_tool', when: 'call recorded, more in batch' },
    { from: 'executing_tool', to: 'streaming_model', when: 'batch done / breaker' },
    { from: 'executing_tool', to: 'completed', when: 'deny_stop recorded' },
    { from: 'executing_tool', to: 'failed', when: 'uncertain call marked failed' },
  ],
  decideCall: [
    { from: 'executing_tool', to: 'streaming_model', when: 'batch already recorded' },
    {
      from: 'executing_tool',
      to: 'paused_uncertain',
      when: 'write of unknown outcome after restart',
    },
  ],
  parkOnApproval: [{ from: 'executing_tool', to: 'waiting_approval', when: 'gatekeeper asks' }],
  beginInteraction: [
    { from: 'executing_tool', to: 'waiting_interaction', when: 'ask_user (a tool that asks)' },
  ],
  execute: [
    { from: 'executing_tool', to: 'executing_tool', when: 'the call starts running' },
    { from: 'executing_tool', to: 'waiting_interaction', when: 'elicitation while running' },
  ],
  afterDecision: [{ from: 'waiting_approval', to: 'executing_tool', when: 'decision' }],
  afterAnswer: [{ from: 'waiting_interaction', to: 'executing_tool', when: 'answer' }],
  afterUncertainResolution: [
    { from: 'paused_uncertain', to: 'executing_tool', when: 'retry / mark_done / fail' },
  ],
  onResume: [
    { from: 'budget_paused', to: 'streaming_model', when: 'resume' },
    { from: 'interrupted', to: 'streaming_model', when: 'resume' },
    { from: 'failed', to: 'streaming_model', when: 'resume (not drift, not user_failed)' },
  ],
  // Take over (issue 28): the driver pauses a run the user asked for at its next safe point.
  takeOverPoint: [
    { from: 'streaming_model', to: 'user_control', when: 'take over, before the next model call' },
    { from: 'executing_tool', to: 'user_control', when: 'take over, before the next tool call' },
  ],
  onHandBack: [{ from: 'user_control', to: 'streaming_model', when: 'hand back' }],
  supersedeCurrent: [
    { from: 'budget_paused', to: 'completed', when: 'superseded by a new turn' },
    { from: 'interrupted', to: 'completed', when: 'superseded by a new turn' },
  ],
} as const satisfies Record<string, readonly EdgeRow[]>;

/** A function that decides state changes (a key of the edge map). */
export type RunDecider = keyof typeof RUN_EDGES;

type Rows<D extends RunDecider> = (typeof RUN_EDGES)[D][number];

/** The states `by` may move a run to. */
export type EdgeTo<D extends RunDecider> = Rows<D>['to'];

type EdgeTo1<D extends RunDecider, T> = T extends RunState ? { by: D; to: T } : never;
type EdgeOf<D extends RunDecider> = D extends RunDecider ? EdgeTo1<D, EdgeTo<D>> : never;

/** One decided state change: the decider and the state it goes to. */
export type RunEdge = EdgeOf<RunDecider>;

/** The edge `by → to` from `from`, if the map has it. */
export function edgeRow(from: RunState | 'new', by: RunDecider, to: RunState): EdgeRow | undefined {
  return (RUN_EDGES[by] as readonly EdgeRow[]).find((e) => e.from === from && e.to === to);
}

/** Thrown when code moves a run along an edge the map does not have: a bug, never user input. */
export class IllegalRunEdge extends Error {
  constructor(from: RunState | 'new', by: string, to: RunState) {
    super(`illegal run edge ${from} → ${to} by ${by}`);
  }
}

/** Edges taken in this process (`from|by|to`), for the test that every edge is reached. */
export const takenEdges = new Set<string>();

function assertEdge(from: RunState | 'new', by: RunDecider, to: RunState): void {
  if (!edgeRow(from, by, to)) throw new IllegalRunEdge(from, by, to);
  takenEdges.add(`${from}|${by}|${to}`);
}

/**
 * The only writer of `run.state`: moves the run (inside a `runs.update` mutator, in the caller's
 * commit) along an edge of the map, or throws `IllegalRunEdge`.
 */
export function moveRun<D extends RunDecider>(
  run: { state: RunState },
  by: D,
  to: EdgeTo<D>,
): void {
  assertEdge(run.state, by, to);
  edgeTaken?.(by, run.state, to);
  run.state = to;
}

/**
 * Tests only: told of every edge taken (`moveRun`, `startState`), so a test can show that every
 * edge of the map is reached (test/sim/edges.test.ts). Unset in the extension.
 */
let edgeTaken: ((by: RunDecider, from: RunState | 'new', to: RunState) => void) | undefined;
export function observeRunEdges(
  fn: ((by: RunDecider, from: RunState | 'new', to: RunState) => void) | undefined,
): void {
  edgeTaken = fn;
}

/** The state a new run starts in (the edge from `new`). */
export function startState<D extends RunDecider>(by: D, to: EdgeTo<D>): EdgeTo<D> {
  assertEdge('new', by, to);
  edgeTaken?.(by, 'new', to);
  return to;
}
