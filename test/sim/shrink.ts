import type { History } from './plan';
import { runHistory, type HistoryResult, type RunOptions } from './run-history';

/** A violation's kind: its message without ids and numbers (what a shrunk history must keep). */
export function violationKind(message: string): string {
  return message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[a-z]+_[A-Za-z0-9_]+\b/g, '<id>')
    .replace(/\d+/g, 'N');
}

function fails(r: HistoryResult, kind: string): boolean {
  return r.violations.some((v) => violationKind(v.message) === kind);
}

/**
 * Minimize a failing history (delta debugging): drop chunks of actions, then replies, then make
 * replies and tool outcomes plain, keeping every change after which the same kind of violation
 * still happens. Bounded by `budget` replays; deterministic like everything else.
 */
export async function shrink(
  history: History,
  kind: string,
  budget = 300,
  options: RunOptions = {},
): Promise<{ history: History; replays: number }> {
  let best = history;
  let replays = 0;
  const tryIt = async (candidate: History): Promise<boolean> => {
    if (replays >= budget) return false;
    replays += 1;
    if (fails(await runHistory(candidate, options), kind)) {
      best = candidate;
      return true;
    }
    return false;
  };
  const dropChunks = async <T>(get: (h: History) => T[], set: (h: History, xs: T[]) => History) => {
    for (
      let size = Math.max(1, Math.floor(get(best).length / 2));
      size >= 1;
      size = Math.floor(size / 2)
    ) {
      for (let i = 0; i + size <= get(best).length; ) {
        const xs = get(best);
        if (!(await tryIt(set(best, [...xs.slice(0, i), ...xs.slice(i + size)])))) i += size;
      }
      if (size === 1) break;
    }
  };
  await dropChunks(
    (h) => h.actions,
    (h, actions) => ({ ...h, actions }),
  );
  await dropChunks(
    (h) => h.replies,
    (h, replies) => ({ ...h, replies, gatedReplies: h.gatedReplies.slice(0, replies.length) }),
  );
  for (let i = 0; i < best.gatedReplies.length; i++) {
    if (best.gatedReplies[i])
      await tryIt({
        ...best,
        gatedReplies: best.gatedReplies.map((g, j) => (j === i ? false : g)),
      });
  }
  for (let i = 0; i < best.tools.length; i++) {
    const t = best.tools[i];
    if (t.fail || t.gated)
      await tryIt({
        ...best,
        tools: best.tools.map((x, j) => (j === i ? { fail: false, gated: false } : x)),
      });
  }
  return { history: best, replays };
}

/** A history as a compact, replayable literal (for reports and pinned regression cases). */
export function formatHistory(h: History): string {
  return JSON.stringify({
    seed: h.seed,
    actions: h.actions,
    replies: h.replies,
    gatedReplies: h.gatedReplies,
    tools: h.tools,
  });
}
