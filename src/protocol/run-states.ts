// Type-only: the panel imports this table, and it should not pull zod in with it.
import type { RunState } from './common';

/**
 * What each run state allows, one row per state (spec/001 §5). Every set of run states — the
 * store's query of the current run, the engine's predicates, the panel's composer and badges — is
 * derived from this table, so adding a state means adding one row here (the type makes it
 * required) and an edge or two in the run machine's edge map (src/engine/run/run-edges.ts).
 */
export interface RunStateTraits {
  /** Working or waiting inside its turn: a new submit is refused `busy` (steer or queue instead). */
  busy: boolean;
  /** A steer may join it (paused runs cannot take one: the steer would wait for nobody). */
  steerable: boolean;
  /** Waits for the user: driving it does nothing until an op moves it on. */
  waiting: boolean;
  /** A paused run a new turn (submit, branch selection) may replace; it ends `completed`. */
  supersedable: boolean;
  /** The thread's current run: started, not finished (at most one per thread). */
  current: boolean;
  /** Will never change again. */
  terminal: boolean;
  /** `run.resume` may continue it (given a snapshot and an error the world did not cause). */
  resumable: boolean;
  /** The driver steps it (the other current states wait for an op). */
  driven: boolean;
  /** Inside a batch of tool calls: calls without a result may be open. */
  inBatch: boolean;
  /** The engine holds work for it that has not ended (queued or working): shown as running. */
  live: boolean;
}

const NONE: RunStateTraits = {
  busy: false,
  steerable: false,
  waiting: false,
  supersedable: false,
  current: false,
  terminal: false,
  resumable: false,
  driven: false,
  inBatch: false,
  live: false,
};

const WORKING = { ...NONE, busy: true, current: true, live: true };

export const RUN_STATE_TRAITS: { readonly [S in RunState]: Readonly<RunStateTraits> } = {
  queued: { ...NONE, live: true },
  streaming_model: { ...WORKING, steerable: true, driven: true },
  executing_tool: { ...WORKING, steerable: true, driven: true, inBatch: true },
  waiting_approval: { ...WORKING, steerable: true, waiting: true, inBatch: true },
  waiting_interaction: { ...WORKING, steerable: true, waiting: true, inBatch: true },
  paused_uncertain: { ...NONE, busy: true, current: true, waiting: true, inBatch: true },
  budget_paused: { ...NONE, current: true, waiting: true, supersedable: true, resumable: true },
  interrupted: { ...NONE, current: true, waiting: true, supersedable: true, resumable: true },
  completed: { ...NONE, terminal: true },
  failed: { ...NONE, terminal: true, resumable: true },
  // The user holds the page (issue 28): the turn is theirs until they hand back, so a submit is
  // busy and a steer is kept for the model (it reads it after the hand back); no call is open.
  user_control: { ...WORKING, steerable: true, waiting: true },
};

/** The states with a trait, in the table's order. */
export function runStatesWhere(trait: keyof RunStateTraits): readonly RunState[] {
  return (Object.keys(RUN_STATE_TRAITS) as RunState[]).filter((s) => RUN_STATE_TRAITS[s][trait]);
}

/** Whether `state` has `trait` (false for no state at all: a thread without a run). */
export function runStateIs(
  state: RunState | null | undefined,
  trait: keyof RunStateTraits,
): boolean {
  return !!state && RUN_STATE_TRAITS[state][trait];
}

/** States in which a run is the thread's current run (the store queries by this list). */
export const CURRENT_RUN_STATES: readonly RunState[] = runStatesWhere('current');

export const TERMINAL_RUN_STATES: readonly RunState[] = runStatesWhere('terminal');
