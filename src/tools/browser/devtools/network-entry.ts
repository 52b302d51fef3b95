/**
 * The tab's requests in one flat shape, from two sources:
 * - `debugger`: CDP `Network.*` events after the debugger attached (method, status, headers,
 *   timing; the response body can be fetched by requestId while the session lasts);
 * - `timing`: Resource Timing entries the content script reads in its isolated world for what the
 *   page fetched before that (no method, no headers, no body; `responseStatus` is 0 when the
 *   browser hides it — a cross-origin response without CORS — or when the request failed).
 * The reducer is pure: it takes the current entries and one event and says what changed.
 */
import type { TimingSnapshot } from '../../../protocol/page-messages';
import { matchesPattern } from './log-page';

export interface NetworkEntry {
  seq: number;
  /** CDP requestId (debugger), or `t<seq>` (timing). */
  id: string;
  source: 'debugger' | 'timing';
  method?: string;
  url: string;
  /** Lower-case resource type: document, script, stylesheet, image, font, fetch, xhr, … */
  type: string;
  /** HTTP status; 0 = unknown (timing: hidden cross-origin or failed). Absent while pending. */
  status?: number;
  statusText?: string;
  /** net::ERR_… or a blocked reason, when the request failed. */
  failed?: string;
  mimeType?: string;
  /** Epoch ms. */
  startedAt: number;
  durationMs?: number;
  /** Bytes on the wire (encoded), when known. */
  bytes?: number;
  fromCache?: boolean;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** Internal: CDP monotonic start (seconds), for the duration. */
  monoStart?: number;
}

const TIMING_TYPE: Record<string, string> = {
  navigation: 'document',
  iframe: 'document',
  frame: 'document',
  fetch: 'fetch',
  xmlhttprequest: 'xhr',
  img: 'image',
  image: 'image',
  imageset: 'image',
  script: 'script',
  css: 'stylesheet',
  link: 'stylesheet',
  beacon: 'ping',
  audio: 'media',
  video: 'media',
};

/**
 * The timing entries of requests that started before `before` (epoch ms; the moment CDP started
 * recording), numbered from `firstSeq`. Later ones are the debugger's to report.
 */
export function entriesFromTiming(
  snap: TimingSnapshot,
  before: number,
  firstSeq: number,
): NetworkEntry[] {
  const out: NetworkEntry[] = [];
  for (const t of snap.entries) {
    const startedAt = snap.timeOrigin + t.startTime;
    if (startedAt >= before) continue;
    const seq = firstSeq + out.length;
    const entry: NetworkEntry = {
      seq,
      id: `t${seq}`,
      source: 'timing',
      url: t.name,
      type: TIMING_TYPE[t.initiatorType] ?? 'other',
      status: t.responseStatus,
      startedAt: Math.round(startedAt),
      durationMs: Math.round(t.duration),
    };
    if (t.contentType) entry.mimeType = t.contentType;
    // transferSize is 0 both for a cache hit and for a cross-origin response without
    // Timing-Allow-Origin (measured: a CORS fetch with status 200 had 0): no cache claim here.
    if (t.transferSize > 0) entry.bytes = t.transferSize;
    out.push(entry);
  }
  return out;
}

type Headers = Record<string, string>;

/** What one CDP Network event does to the log. */
export type NetworkChange =
  | {
      kind: 'add';
      entry: Omit<NetworkEntry, 'seq'>;
      redirected?: { status: number; statusText: string };
    }
  | {
      kind: 'update';
      id: string;
      patch: Partial<NetworkEntry>;
      /** CDP monotonic time (seconds) the request finished or failed: sets the duration. */
      endedAt?: number;
    }
  | { kind: 'none' };

const asHeaders = (h: unknown): Headers | undefined =>
  h && typeof h === 'object'
    ? Object.fromEntries(
        Object.entries(h as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
      )
    : undefined;

export function networkChangeOf(method: string, params: unknown): NetworkChange {
  const p = (params ?? {}) as Record<string, unknown>;
  const id = String(p.requestId ?? '');
  switch (method) {
    case 'Network.requestWillBeSent': {
      const req = (p.request ?? {}) as {
        url?: string;
        method?: string;
        headers?: unknown;
        urlFragment?: string;
      };
      const entry: Omit<NetworkEntry, 'seq'> = {
        id,
        source: 'debugger',
        method: req.method ?? 'GET',
        url: `${req.url ?? ''}${req.urlFragment ?? ''}`,
        type: String(p.type ?? 'other').toLowerCase(),
        startedAt: Math.round(Number(p.wallTime ?? 0) * 1000),
        monoStart: Number(p.timestamp ?? 0),
      };
      const headers = asHeaders(req.headers);
      if (headers) entry.requestHeaders = headers;
      const r = p.redirectResponse as { status?: number; statusText?: string } | undefined;
      return r
        ? {
            kind: 'add',
            entry,
            redirected: { status: Number(r.status ?? 0), statusText: String(r.statusText ?? '') },
          }
        : { kind: 'add', entry };
    }
    case 'Network.requestWillBeSentExtraInfo': {
      // The headers really sent (with cookies): they replace the renderer's view.
      const headers = asHeaders(p.headers);
      return headers
        ? { kind: 'update', id, patch: { requestHeaders: headers } }
        : { kind: 'none' };
    }
    case 'Network.responseReceived': {
      const r = (p.response ?? {}) as {
        status?: number;
        statusText?: string;
        mimeType?: string;
        headers?: unknown;
        fromDiskCache?: boolean;
        fromPrefetchCache?: boolean;
        fromServiceWorker?: boolean;
      };
      const patch: Partial<NetworkEntry> = {
        status: Number(r.status ?? 0),
        statusText: String(r.statusText ?? ''),
        type: String(p.type ?? 'other').toLowerCase(),
      };
      if (r.mimeType) patch.mimeType = r.mimeType;
      const headers = asHeaders(r.headers);
      if (headers) patch.responseHeaders = headers;
      if (r.fromDiskCache || r.fromPrefetchCache) patch.fromCache = true;
      return { kind: 'update', id, patch };
    }
    case 'Network.responseReceivedExtraInfo': {
      const headers = asHeaders(p.headers);
      return headers
        ? { kind: 'update', id, patch: { responseHeaders: headers } }
        : { kind: 'none' };
    }
    case 'Network.loadingFinished':
      return {
        kind: 'update',
        id,
        patch: { bytes: Number(p.encodedDataLength ?? 0) },
        endedAt: Number(p.timestamp ?? 0),
      };
    case 'Network.loadingFailed':
      return {
        kind: 'update',
        id,
        patch: { failed: failureOf(p) },
        endedAt: Number(p.timestamp ?? 0),
      };
    default:
      return { kind: 'none' };
  }
}

function failureOf(p: Record<string, unknown>): string {
  if (p.canceled) return 'canceled';
  const cors = (p.corsErrorStatus as { corsError?: string } | undefined)?.corsError;
  if (p.blockedReason) return `blocked (${String(p.blockedReason)})`;
  if (cors) return `blocked by CORS (${cors})`;
  return String(p.errorText || 'failed');
}

export interface NetworkFilter {
  /** Case-insensitive substring of the URL. */
  pattern?: string;
  /** ok: 2xx/3xx; errors: ≥ 400 or failed; failed: no response (network error, blocked). */
  status?: 'all' | 'ok' | 'errors' | 'failed';
  types?: readonly string[];
}

export function matchesNetworkFilter(e: NetworkEntry, f: NetworkFilter): boolean {
  if (!matchesPattern(f.pattern, e.url)) return false;
  if (f.types?.length && !f.types.includes(e.type)) return false;
  switch (f.status ?? 'all') {
    case 'ok':
      return !e.failed && e.status !== undefined && e.status >= 200 && e.status < 400;
    case 'errors':
      return Boolean(e.failed) || (e.status !== undefined && e.status >= 400);
    case 'failed':
      return Boolean(e.failed);
    default:
      return true;
  }
}
