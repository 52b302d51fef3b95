import type { RunRecord } from '../../store/records';

/** What a step tells the driver: step again, the run waits for the user, or the turn is over. */
export type StepOutcome = 'continue' | 'parked' | 'ended';

/** The round this model call belongs to: a planning round first when the thread asks for one. */
export function currentRound(
  run: Pick<RunRecord, 'stepCursor' | 'env'>,
): 'plan' | 'continuation' | undefined {
  const r = run.stepCursor.round;
  if (r === 'plan' || r === 'continuation') return r;
  return run.env?.planFirst && run.stepCursor.modelCalls === 0 ? 'plan' : undefined;
}
