import { describe, expect, it } from 'vitest';
import type { Item } from '../../../src/protocol';
import { buildContext, type ContextOptions } from '../../../src/engine/context-builder';
import { DEFAULT_CLIP_POLICY } from '../../../src/engine/context-clipping';
import { estimateTokens } from '../../../src/engine/compaction';
import { callIdsOnPath } from '../../../src/engine/tool-call-ids';
import { deepFreeze } from '../../../src/store/deep-freeze';
import { RECORD_VERSION, type NodeRecord } from '../../../src/store/records';
import { rng } from '../../../scripts/bench/cost-task';

/**
 * Issue 17: a thread's next context resumes from its previous build when the path only grew
 * (context-builder.ts). Property: on generated threads — tool groups with missing and
 * interleaved results, notices, steers, plan rounds, compactions, batches of clipped results,
 * branch switches — every step's resumed context (frozen nodes, as the store's cache hands
 * them out) equals a build from scratch of the same path (unfrozen copies, never resumed), and
 * so does the token estimate.
 */

const OPTS: ContextOptions[] = [
  {
    vision: true,
    providerKind: 'anthropic',
    truncate: { ...DEFAULT_CLIP_POLICY, batchTokens: 400 },
  },
  {
    vision: false,
    providerKind: 'openai',
    truncate: { ...DEFAULT_CLIP_POLICY, keepRecent: 2, batchTokens: 50 },
  },
  { vision: true, providerKind: 'openai' },
];

function generator(seed: number, threadId: string) {
  const r = rng(seed);
  let k = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const text = () => 'x'.repeat(Math.floor(r() * 3000));
  const node = (parent: NodeRecord | undefined, item: Item): NodeRecord => ({
    v: RECORD_VERSION,
    id: item.id,
    threadId,
    parentId: parent?.id ?? null,
    seq: ++k,
    createdAt: k,
    item,
  });
  /** One to four nodes to append after `path`. */
  return (path: NodeRecord[]): NodeRecord[] => {
    const out: NodeRecord[] = [];
    const at = () => out[out.length - 1] ?? path[path.length - 1];
    const id = () => `${threadId}-n${k + 1}`;
    const kind = pick(['user', 'assistant', 'assistant', 'notice', 'compaction', 'steer']);
    if (kind === 'user' || kind === 'steer')
      out.push(
        node(at(), {
          kind: 'user_message',
          id: id(),
          createdAt: k,
          text: text(),
          ...(kind === 'steer' ? { steered: true } : {}),
        }),
      );
    else if (kind === 'notice')
      out.push(
        node(at(), {
          kind: 'notice',
          id: id(),
          createdAt: k,
          code: 'c',
          text: 'note',
          forModel: r() < 0.7,
        }),
      );
    else if (kind === 'compaction' && path.length > 3)
      out.push(
        node(at(), {
          kind: 'notice',
          id: id(),
          createdAt: k,
          code: 'compaction',
          text: 'compacted',
          summary: 'summary',
          summarizesUpTo: pick(path.slice(0, -1)).id,
        }),
      );
    else {
      const calls = Array.from({ length: Math.floor(r() * 3) }, (_, i) => ({
        id: `c${k}-${i}`,
        name: pick(['read', 'find', 'get_skill']),
        args: { q: text() },
      }));
      out.push(
        node(at(), {
          kind: 'assistant_message',
          id: id(),
          createdAt: k,
          text: r() < 0.8 ? 'step' : '',
          ...(r() < 0.1 ? { round: 'plan' as const } : {}),
          providerStopReason: calls.length ? 'tool_use' : 'end',
          ...(calls.length ? { toolCalls: calls } : {}),
        }),
      );
      for (const c of calls) {
        if (r() < 0.15) continue; // a call without a result (a crash, an interrupt)
        out.push(
          node(at(), {
            kind: 'tool_call',
            id: id(),
            createdAt: k,
            toolCallId: c.id,
            name: c.name,
            label: c.name,
            params: c.args,
            state: 'result',
          }),
        );
        if (r() < 0.1)
          out.push(
            node(at(), {
              kind: 'notice',
              id: id(),
              createdAt: k,
              code: 'w',
              text: 'mid-group',
              forModel: true,
            }),
          );
        out.push(
          node(at(), {
            kind: 'tool_result',
            id: id(),
            createdAt: k,
            toolCallId: c.id,
            name: c.name,
            ok: r() < 0.8,
            outcome: 'ok',
            content: [{ type: 'text', text: text() }],
            ...(r() < 0.5 ? { untrusted: true } : {}),
          }),
        );
      }
    }
    return out;
  };
}

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
