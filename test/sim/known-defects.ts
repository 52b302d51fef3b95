/**
 * Violations the simulation finds that are defects listed in issue 12 and fixed by the engine
 * work (not by the simulation's branch). The CI entry (sim.test.ts) tolerates exactly these and
 * fails on anything else; `npm run test:sim` counts every violation, these included. Each entry
 * has a pinned, shrunk history in regressions.test.ts (as `it.fails`). Empty this list when the
 * fixes land.
 */
export const KNOWN_DEFECTS: { defect: string; pattern: RegExp }[] = [
  {
    defect: 'acked steers lost on a provider error that ends the turn (run-failure.ts attemptFailed/failRun)',
    pattern: /^steer "[^"]*" still pending in run \S+, which is failed \(its turn ended; last=model_error error=(rate_limit|overloaded|server|network|bad_request|auth|stream)\b/,
  },
  {
    defect: 'a budget-paused run holding steers is marked completed by a new submit (ops-turns.ts) or superseded by branch selection',
    pattern: /^steer "[^"]*" still pending in run \S+, which is completed \(its turn ended; last=budget_pause\b/,
  },
  {
    defect: "a steer during the tool-failure breaker's final reply is never used (assistant-commit.ts)",
    pattern: /^steer "[^"]*" still pending in run \S+, which is completed \(its turn ended; .*\btoolsDisabled\b/,
  },
];

export function knownDefect(message: string): boolean {
  return KNOWN_DEFECTS.some((k) => k.pattern.test(message));
}
