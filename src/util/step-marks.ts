/**
 * Timing marks of a step's phases, for the step-gap benchmark's profile (`scripts/bench/step-gap.ts`
 * reads them from the service worker). Off unless something puts an array at
 * `globalThis.__keelStepMarks`: then each mark appends `[phase, wall-clock ms]` (sub-millisecond,
 * the same clock as the benchmark process's `performance.timeOrigin + performance.now()`). Off, a
 * mark costs one property read; nothing else in Keel reads or writes that array.
 */
export function stepMark(phase: string): void {
  const sink = (globalThis as { __keelStepMarks?: [string, number][] }).__keelStepMarks;
  if (sink) sink.push([phase, performance.timeOrigin + performance.now()]);
}
