import { describe, expect, it } from 'vitest';
import { buildContext } from '../../../src/engine/context/context-builder';
import { estimateTokens } from '../../../src/engine/model/compaction';
import { callIdsOnPath } from '../../../src/engine/model/tool-call-ids';
import { deepFreeze } from '../../../src/store/deep-freeze';
import type { NodeRecord } from '../../../src/store/records';
import { rng } from '../../../scripts/bench/cost-task';
import { generator, OPTS } from './generated-thread';

/**
 * Issue 17: a thread's next context resumes from its previous build when the path only grew
 * (context-builder.ts). Property: on generated threads — tool groups with missing and
 * interleaved results, notices, steers, plan rounds, compactions, batches of clipped results,
 * branch switches — every step's resumed context (frozen nodes, as the store's cache hands
 * them out) equals a build from scratch of the same path (unfrozen copies, never resumed), and
 * so does the token estimate.
 */

describe('buildContext resumes a growing thread exactly', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}: every step equals a build from scratch`, () => {
      const threadId = `thread-${seed}`;
      const opts = OPTS[seed % OPTS.length];
      const grow = generator(seed * 7919, threadId);
      const r = rng(seed);
      let path: NodeRecord[] = [];
      let before: { messages: unknown; json: string } | null = null;
      for (let step = 0; step < 120; step++) {
        // Now and then the user switches to an earlier branch point and continues from there.
        if (path.length > 4 && r() < 0.05) path = path.slice(0, 1 + Math.floor(r() * path.length));
        path = [...path, ...grow(path).map((n) => deepFreeze(n))];
        const resumed = buildContext(path, opts);
        const scratch = buildContext(structuredClone(path), opts);
        expect(resumed, `seed ${seed}, step ${step}`).toEqual(scratch);
        // What an earlier step handed out stays as it was (a request may still hold it).
        if (before)
          expect(JSON.stringify(before.messages), `seed ${seed}, step ${step}`).toBe(before.json);
        before = { messages: resumed, json: JSON.stringify(resumed) };
        // The thread's used call ids, kept across steps the same way, equal a walk of the path.
        const walked = path.flatMap((n) =>
          n.item.kind === 'assistant_message' ? (n.item.toolCalls ?? []).map((c) => c.id) : [],
        );
        expect([...callIdsOnPath(path)].sort(), `seed ${seed}, step ${step}`).toEqual(
          [...new Set(walked)].sort(),
        );
        expect(estimateTokens('s', resumed, '[]')).toBe(
          Math.ceil((1 + JSON.stringify(scratch).length + 2) / 4),
        );
      }
    });
  }
});
