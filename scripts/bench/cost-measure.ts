/**
 * What a sequence of serialized request bodies costs with prompt caching: the prefix-reuse share
 * (the share of each request that the next one repeats byte for byte as its prefix), and a cache
 * model of each provider priced at the catalog's prices.
 */

/** Length of the common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  // Compare in chunks first: the bodies are long and mostly equal.
  const CHUNK = 256;
  while (i + CHUNK <= n && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface ReuseFigures {
  /** Per request except the last: share of it the next request repeats as its prefix. */
  shares: number[];
  mean: number;
  worst: number;
  /** Requests after which the next one was not append-only (share < 1 minus the closing bytes). */
  edits: number;
}

/** Prefix reuse of consecutive requests (bytes of the serialized bodies). */
export function prefixReuse(bodies: readonly string[]): ReuseFigures {
  const shares: number[] = [];
  let edits = 0;
  for (let i = 0; i + 1 < bodies.length; i++) {
    const lcp = commonPrefix(bodies[i], bodies[i + 1]);
    shares.push(lcp / bodies[i].length);
    // An append-only step differs only in the body's last few bytes (closing brackets, flags).
    if (bodies[i].length - lcp > 200) edits++;
  }
  const mean = shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : 1;
  return { shares, mean, worst: shares.length ? Math.min(...shares) : 1, edits };
}

export interface Pricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface CostFigures {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** cacheRead / input. */
  cachedShare: number;
  usd: number;
}

/** Tokens of a span of the body, at about 4 characters a token (the same for every policy). */
const tokens = (chars: number) => Math.ceil(chars / 4);
/** A breakpoint, always its block's last key: the block's content is complete before the comma. */
const MARKER = ',"cache_control":{"type":"ephemeral"}';
/** Neither provider caches a prefix shorter than 1,024 tokens. */
const MIN_CACHED_TOKENS = 1024;

/**
 * Anthropic: a request reads the longest prefix an earlier request wrote at one of its
 * breakpoints (the marked blocks), and writes up to its own last breakpoint (the API's look-back
 * finds an earlier write within 20 blocks of a breakpoint; a step adds two).
 */
function anthropicCache(
  bodies: readonly string[],
): { read: number; write: number; input: number }[] {
  const written: string[] = [];
  return bodies.map((body) => {
    let read = 0;
    for (const prefix of written)
      if (prefix.length > read && body.startsWith(prefix)) read = prefix.length;
    let last = 0;
    for (let at = body.indexOf(MARKER); at >= 0; at = body.indexOf(MARKER, at + 1)) {
      written.push(body.slice(0, at));
      last = at;
    }
    if (tokens(read) < MIN_CACHED_TOKENS) read = 0;
    return {
      read: tokens(read),
      write: tokens(Math.max(0, last - read)),
      input: tokens(body.length),
    };
  });
}

/** OpenAI: the longest prefix shared with an earlier request is read, in 128-token steps; no write charge. */
function openaiCache(bodies: readonly string[]): { read: number; write: number; input: number }[] {
  return bodies.map((body, i) => {
    let best = 0;
    for (let j = Math.max(0, i - 3); j < i; j++)
      best = Math.max(best, commonPrefix(bodies[j], body));
    let read = Math.floor(tokens(best) / 128) * 128;
    if (read < MIN_CACHED_TOKENS) read = 0;
    return { read, write: 0, input: tokens(body.length) };
  });
}

/** Input, cached share and $ of the requests, with `outputTokens` per request at the output price. */
export function cacheCost(
  bodies: readonly string[],
  kind: 'anthropic' | 'openai',
  pricing: Pricing,
  outputTokens: number,
): CostFigures {
  const per = kind === 'anthropic' ? anthropicCache(bodies) : openaiCache(bodies);
  let input = 0;
  let read = 0;
  let write = 0;
  let micros = 0;
  for (const r of per) {
    input += r.input;
    read += r.read;
    write += r.write;
    const uncached = Math.max(0, r.input - r.read - r.write);
    micros +=
      uncached * pricing.input +
      r.read * (pricing.cacheRead ?? pricing.input) +
      r.write * (pricing.cacheWrite ?? pricing.input) +
      outputTokens * pricing.output;
  }
  return {
    inputTokens: input,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    cachedShare: input ? read / input : 0,
    usd: micros / 1_000_000,
  };
}
