/**
 * Violations the simulation finds that are engine defects, fixed by the engine work (not by the
 * simulation's branch). The CI entry (sim.test.ts) tolerates exactly these and
 * fails on anything else; `npm run test:sim` counts every violation, these included. Each entry
 * has a pinned, shrunk history in regressions.test.ts (as `it.fails`). Empty this list when the
 * fixes land.
 */
export const KNOWN_DEFECTS: { defect: string; pattern: RegExp }[] = [
  // The run machine (issue 12) fixed the three defects listed first; their shrunk histories in
  // regressions.test.ts now run as ordinary regression tests.
  {
    // Found once transient tool failures and the backoff clock came in (issue 25 §5): the retry
    // loop (tool-execute.ts) runs the next attempt after its backoff without judging the call
    // again, so a site blocked (or a rule taken back) during the wait is touched anyway.
    defect: 'a retry after a transient tool failure skips the permission check',
    pattern: /\(a retry after a transient failure\)$/,
  },
];

export function knownDefect(message: string): boolean {
  return KNOWN_DEFECTS.some((k) => k.pattern.test(message));
}
