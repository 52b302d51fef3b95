import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildContext } from '../../../src/engine/context/context-builder';
import { callIdsOnPath } from '../../../src/engine/model/tool-call-ids';
import { extendsMarked, pathMark } from '../../../src/store/path-lineage';
import type { NodeRecord } from '../../../src/store/records';
import { Store, type DexieStore } from '../../../src/store/store';
import { rng } from '../../../scripts/bench/cost-task';
import { generator, OPTS } from './generated-thread';

/**
 * Issue 17: the context resume and the used call ids skip comparing a long path node by node when
 * the store's marks (path-lineage.ts) say the path only grew since. Property, on paths the Dexie
 * store hands out while a generated thread grows through it — with nodes of the path changed in
 * place now and then, and the leaf moved back to an earlier node (a branch) — every step's
 * resumed context equals a build from scratch, the call ids equal a walk of the path, and the
 * marks are used exactly when they may be: a path after appends only is known to extend the
 * previous one, a path after an in-place change or a branch switch is not.
 */

let n = 0;
const open: DexieStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function walkedIds(path: NodeRecord[]): string[] {
  const ids = path.flatMap((x) =>
    x.item.kind === 'assistant_message' ? (x.item.toolCalls ?? []).map((c) => c.id) : [],
  );
  return [...new Set(ids)].sort();
}

describe('context resume over the Dexie store’s marked paths', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: every step equals a build from scratch; marks used only after appends`, async () => {
      const store = Store.open(`resume-store-${++n}`);
      open.push(store);
      const threadId = `thread-s${seed}`;
      const opts = OPTS[seed % OPTS.length];
      const grow = generator(seed * 104_729, threadId);
      const r = rng(seed + 1000);
      let path: NodeRecord[] = [];
      let leaf: string | null = null;
      let appendsOnly = false;
      let fastSteps = 0;
      for (let step = 0; step < 80; step++) {
        const before = pathMark(path);
        const prevPath = path;
        appendsOnly = true;
        if (path.length > 4 && r() < 0.08) {
          // A branch: the leaf moves back to an earlier node and the thread continues there.
          leaf = path[Math.floor(r() * (path.length - 1))].id;
          appendsOnly = false;
        } else if (path.length > 2 && r() < 0.12) {
          // A node of the path changes in place (as a tool call's state does when it finishes).
          const target = path[Math.floor(r() * path.length)];
          await store.threads.updateNodeItem(target.id, (it) => {
            if (it.kind === 'notice' || it.kind === 'user_message') it.text = `${it.text}!`;
            else if (it.kind === 'tool_result') it.content = [{ type: 'text', text: 'changed' }];
            else if (it.kind === 'assistant_message') it.text = `${it.text}!`;
          });
          appendsOnly = false;
        }
        const base: NodeRecord[] = leaf ? await store.threads.path(threadId, leaf) : [];
        const added = grow(base);
        await store.transaction(async () => {
          for (const x of added) await store.threads.putNode(x);
        });
        leaf = added.length ? added[added.length - 1].id : leaf;
        path = leaf ? await store.threads.path(threadId, leaf) : [];

        const known = extendsMarked(path, before);
        if (appendsOnly && prevPath.length)
          expect(known, `seed ${seed}, step ${step}: a path that only grew`).toBe(true);
        if (!appendsOnly)
          expect(known, `seed ${seed}, step ${step}: changed in place or branched`).toBeUndefined();
        if (known) fastSteps += 1;

        const resumed = buildContext(path, opts);
        expect(resumed, `seed ${seed}, step ${step}`).toEqual(
          buildContext(structuredClone(path), opts),
        );
        expect([...callIdsOnPath(path)].sort(), `seed ${seed}, step ${step}`).toEqual(
          walkedIds(path),
        );
      }
      // The property is about the common case: most steps of a growing thread only append.
      expect(fastSteps).toBeGreaterThan(40);
    });
  }
});
