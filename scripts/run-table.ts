/**
 * Writes the run machine's table (generated from the edge map, src/engine/run/run-edges.ts) into
 * docs/recovery.md and docs/architecture.md: `npx tsx scripts/run-table.ts`. A unit test
 * (run-machine.test.ts) fails while a doc's copy differs from the generated one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RUN_TRANSITIONS, transitionTableMarkdown } from '../src/engine/run/run-transitions';

const HEADER = '| from | event | to | decided by |';

for (const doc of ['docs/recovery.md', 'docs/architecture.md']) {
  const path = resolve(import.meta.dirname, '..', doc);
  const lines = readFileSync(path, 'utf8').split('\n');
  const at = lines.indexOf(HEADER);
  if (at < 0) throw new Error(`${doc} has no run table (a line "${HEADER}")`);
  let end = at;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  lines.splice(at, end - at, ...transitionTableMarkdown().split('\n'));
  const text = lines
    .join('\n')
    .replace(/\b\d+ transitions\b/g, `${RUN_TRANSITIONS.length} transitions`);
  writeFileSync(path, text);
  console.log(`${doc}: ${RUN_TRANSITIONS.length} transitions`);
}
