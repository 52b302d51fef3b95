import type { UserInput } from '../../protocol';
import type { RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import type { LeafWriter } from './leaf-writer';
import { reject, type Outcome } from '../host/op-outcome';
import { isSteerable } from './run-machine';

/**
 * Steer admission (spec/001 §3). A steer is acknowledged only once it is durable in the run's
 * pending set with its admission sequence; it is materialized as a steered user message at a safe
 * leaf — the next request's cutoff, or, when the turn ends or pauses early, right before the
 * terminal state is written. Nothing else ever clears the pending set.
 */

/** Inside the steer op's commit: admit the steer into the current run, or say why not. */
export async function admitSteer(
  ctx: EngineContext,
  a: {
    threadId: string;
    expectedTurnId: string;
    input: UserInput;
    steerId: string;
    writeReceipt: (o: Outcome) => Promise<void>;
    outcome: Outcome;
  },
): Promise<Outcome> {
  const { store, clock } = ctx;
  const run = await store.runs.current(a.threadId);
  if (!run) return reject('no_active_turn', 'No task is running in this thread.');
  if (run.turnId !== a.expectedTurnId)
    return reject('turn_mismatch', `The running turn is ${run.turnId}, not ${a.expectedTurnId}.`);
  if (!isSteerable(run.state))
    return reject('not_steerable', 'The task is paused: queue your message or continue the task.');
  if (a.input.images?.length && run.env && !run.env.modelInfo.vision)
    return reject('invalid_command', `The model ${run.env.model} cannot see images.`);
  await store.runs.update(
    run.runId,
    (r) => {
      r.pendingSteers.push({
        steerId: a.steerId,
        seq: r.nextSteerSeq,
        input: a.input,
        admittedAt: clock.now(),
      });
      r.nextSteerSeq += 1;
    },
    clock.now(),
  );
  await a.writeReceipt(a.outcome);
  return a.outcome;
}

/**
 * "Materialize admitted steers", the one implementation: inside a commit, append the run's pending
 * steers at the writer's leaf in admission order and return their ids; the caller removes exactly
 * those from `pendingSteers` in the same commit (`dropMaterialized`).
 */
export async function materializeAdmittedSteers(
  ctx: EngineContext,
  w: LeafWriter,
  run: Pick<RunRecord, 'pendingSteers'>,
): Promise<Set<string>> {
  const now = ctx.clock.now();
  const ids = new Set<string>();
  for (const s of [...run.pendingSteers].sort((a, b) => a.seq - b.seq)) {
    await w.append({
      kind: 'user_message',
      id: ctx.ids.next('n'),
      createdAt: now,
      text: s.input.text,
      ...(s.input.images?.length ? { images: s.input.images } : {}),
      steered: true,
    });
    ids.add(s.steerId);
  }
  return ids;
}

/** Remove the steers `materializeAdmittedSteers` wrote (inside the same commit's run update). */
export function dropMaterialized(r: RunRecord, ids: Set<string>): void {
  if (ids.size) r.pendingSteers = r.pendingSteers.filter((s) => !ids.has(s.steerId));
}
