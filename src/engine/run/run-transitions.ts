import type { RunState } from '../../protocol';
import { RUN_EDGES, type RunDecider } from './run-edges';

/** One row of the machine's table: an edge, its event, and the function that decides it. */
export interface RunTransition {
  from: RunState | 'new';
  event: string;
  to: RunState;
  /** The function that decides it (a key of the edge map). */
  by: RunDecider;
}

/**
 * Every edge of the machine, generated from the edge map `moveRun` asserts against
 * (run-edges.ts): the docs show this table, and a test keeps their copy equal to it.
 */
export const RUN_TRANSITIONS: readonly RunTransition[] = (
  Object.keys(RUN_EDGES) as RunDecider[]
).flatMap((by) => RUN_EDGES[by].map((e) => ({ from: e.from, event: e.when, to: e.to, by })));

/** The table as Markdown (docs/recovery.md and docs/architecture.md carry it; a test keeps them in step). */
export function transitionTableMarkdown(): string {
  const rows = RUN_TRANSITIONS.map(
    (t) => `| \`${t.from}\` | ${t.event} | \`${t.to}\` | \`${t.by}\` |`,
  );
  return ['| from | event | to | decided by |', '|---|---|---|---|', ...rows].join('\n');
}
