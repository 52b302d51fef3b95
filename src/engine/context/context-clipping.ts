/**
 * Which old tool results (and their calls' arguments) the context sends clipped (spec/000
 * "truncation"), decided so that the context is edited rarely and in batches.
 *
 * Why batches: both providers cache a request's prefix, and a cached token costs a tenth of an
 * uncached one (Anthropic also charges 1.25× to write it). Clipping one more old result per step
 * changes a message deep in the context on every step, so everything after it is written again on
 * every step. Here the context stays append-only until the old, still-whole results add up to
 * `batchTokens` of possible saving; then all of them are clipped at once, and it is append-only
 * again. docs/benchmarks.md ("Cost") has the measurement the thresholds come from.
 *
 * The decision is a pure function of the path, replayed from its start: a longer path of the same
 * thread reaches the same state after the same results, so the clipped set only grows, and only
 * at a batch.
 */

/** How old results are clipped. */
export interface ClipPolicy {
  /** The newest results that always stay whole (the model acts on what it just saw). */
  keepRecent: number;
  /** Characters of each text block a clipped result keeps. */
  maxChars: number;
  /** Characters of each string argument a clipped call keeps. */
  maxArgChars: number;
  /** Tools whose results are never clipped (a skill's instructions). */
  whitelist: ReadonlySet<string>;
  /** Estimated tokens a batch must save before the context is edited. */
  batchTokens: number;
}

/** One tool result on the path, in path order, with what clipping it (and its call) would save. */
export interface ClipCandidate {
  id: string;
  /** Estimated tokens saved by clipping; 0 when clipping changes nothing. */
  savings: number;
  /** False for whitelisted tools. */
  clippable: boolean;
}

/**
 * Absolute batch size, chosen from the cost benchmark's sweep (docs/benchmarks.md "Cost"): with
 * cache reads at 0.1× (Anthropic, OpenAI's GPT-5 family), the cheapest batch over 30–60-step
 * turns is 16–32 k tokens. But every batch costs one request most of its prefix: 80 k is the
 * smallest batch measured that keeps the mean prefix reuse at 98 % or more over turns of 30 to 90
 * steps (test/unit/context/prefix-reuse.test.ts), and it still costs 10–28 % less than never
 * clipping from 60 steps on.
 */
export const BATCH_TOKENS = 80_000;

/**
 * A batch never waits for more than this share of the model's window: within one turn nothing
 * else shrinks the context (compaction works on earlier turns), so the pending results, the
 * recent ones and the prompt must fit together.
 */
export const BATCH_WINDOW_SHARE = 0.5;

export const DEFAULT_CLIP_POLICY: ClipPolicy = {
  keepRecent: 6,
  maxChars: 600,
  maxArgChars: 300,
  whitelist: new Set(['get_skill']),
  batchTokens: BATCH_TOKENS,
};

/** The policy for a model with this context window (tokens). */
export function clipPolicyFor(contextWindow: number): ClipPolicy {
  const batchTokens = Math.max(
    1,
    Math.min(BATCH_TOKENS, Math.floor(contextWindow * BATCH_WINDOW_SHARE)),
  );
  return { ...DEFAULT_CLIP_POLICY, batchTokens };
}

/**
 * The ids of the results to send clipped. Replays the path: after each result, the result that
 * just left the `keepRecent` window adds its saving to the pending batch; when the pending saving
 * reaches `batchTokens`, every result older than the window is clipped (the boundary moves).
 */
export function clippedResults(
  candidates: readonly ClipCandidate[],
  policy: ClipPolicy,
): Set<string> {
  const boundary = clipBoundary(candidates, policy);
  const out = new Set<string>();
  for (const c of candidates.slice(0, boundary)) if (c.clippable) out.add(c.id);
  return out;
}

/**
 * How many of the oldest candidates are clipped (`clippedResults` takes the clippable ones of
 * them): the same number means the same clipped set, so a context can be continued.
 */
export function clipBoundary(candidates: readonly ClipCandidate[], policy: ClipPolicy): number {
  return clipScan(candidates, policy).boundary;
}

/**
 * Where the replay of `clipBoundary` stands after `next` candidates. The replay only looks back
 * (the result leaving the window at candidate i is candidate i − keepRecent), so appending
 * candidates continues it from here: a long thread's next context does not replay every result.
 */
export interface ClipScan {
  readonly next: number;
  readonly boundary: number;
  readonly pending: number;
}

const SCAN_START: ClipScan = { next: 0, boundary: 0, pending: 0 };

/** The replay continued from `from` over the candidates appended since (all: from the start). */
export function clipScan(
  candidates: readonly ClipCandidate[],
  policy: ClipPolicy,
  from: ClipScan = SCAN_START,
): ClipScan {
  let { boundary, pending } = from;
  for (let i = from.next; i < candidates.length; i++) {
    const left = i - policy.keepRecent;
    if (left < boundary) continue;
    if (candidates[left].clippable) pending += candidates[left].savings;
    if (pending >= policy.batchTokens) {
      boundary = left + 1;
      pending = 0;
    }
  }
  return { next: candidates.length, boundary, pending };
}

/** Text cut to `max` characters, with a note saying so (unchanged when it fits). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters of this older result omitted; repeat the call if you need them]`;
}

/**
 * A clipped call's arguments: long string values cut, structure kept (the APIs want an object, and
 * the model should still see what it called with).
 */
export function clipArgs(args: unknown, max: number): unknown {
  if (typeof args === 'string')
    return args.length <= max
      ? args
      : `${args.slice(0, max)}… [${args.length - max} characters omitted]`;
  if (Array.isArray(args)) return args.map((v) => clipArgs(v, max));
  if (args && typeof args === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) out[k] = clipArgs(v, max);
    return out;
  }
  return args;
}

/** Characters a clipped copy of these arguments saves (0 when nothing is long enough to clip). */
export function argsSavings(args: unknown, max: number): number {
  if (typeof args === 'string') return Math.max(0, args.length - max - 40);
  if (Array.isArray(args)) return args.reduce((n: number, v) => n + argsSavings(v, max), 0);
  if (args && typeof args === 'object')
    return Object.values(args).reduce((n: number, v) => n + argsSavings(v, max), 0);
  return 0;
}
