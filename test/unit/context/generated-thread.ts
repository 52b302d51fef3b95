import type { Item } from '../../../src/protocol';
import type { ContextOptions } from '../../../src/engine/context/context-builder';
import { DEFAULT_CLIP_POLICY } from '../../../src/engine/context/context-clipping';
import { RECORD_VERSION, type NodeRecord } from '../../../src/store/records';
import { rng } from '../../../scripts/bench/cost-task';

/**
 * Generated threads for the context-resume properties (context-resume.test.ts on bare frozen
 * nodes, context-resume-store.test.ts on paths the Dexie store hands out): tool groups with
 * missing and interleaved results, notices, steers, plan rounds, compactions, long results for
 * batches of clipping.
 */

export const OPTS: ContextOptions[] = [
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

export function generator(seed: number, threadId: string) {
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
