/** The model-facing lines of browser_network. Pure. */
import { clipText } from './log-page';
import type { NetworkEntry } from './network-entry';

const MAX_URL_CHARS = 500;
const MAX_HEADER_VALUE_CHARS = 300;
const MAX_HEADERS = 40;

function statusOf(e: NetworkEntry): string {
  // A response can arrive and its load still fail or be canceled (an opaque no-cors read).
  if (e.failed) return e.status ? `${e.status}, then failed (${e.failed})` : `failed (${e.failed})`;
  if (e.status === undefined) return 'pending';
  if (e.status === 0 && e.source === 'timing') return 'status hidden or failed';
  return `${e.status}${e.statusText ? ` ${e.statusText}` : ''}`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

function headerLines(title: string, headers: Record<string, string> | undefined): string[] {
  if (!headers) return [];
  const names = Object.keys(headers);
  const lines = names
    .slice(0, MAX_HEADERS)
    .map((n) => `    ${n}: ${clipText(headers[n], MAX_HEADER_VALUE_CHARS)}`);
  if (names.length > MAX_HEADERS) lines.push(`    … ${names.length - MAX_HEADERS} more headers`);
  return [`  ${title}:`, ...lines];
}

/**
 * `#4 GET 404 Not Found fetch http://… — 39 ms, 304 B, text/plain [id 123.4]`; entries from Resource
 * Timing say they have no method or headers. With `headers`, the (redacted) headers follow.
 */
export function renderNetworkEntry(e: NetworkEntry, opts: { headers: boolean }): string {
  const method = e.method ?? '(method unknown)';
  const facts = [
    e.durationMs !== undefined ? `${e.durationMs} ms` : undefined,
    e.bytes ? size(e.bytes) : undefined,
    e.fromCache ? 'from cache' : undefined,
    e.mimeType,
  ].filter(Boolean);
  const tail =
    e.source === 'timing'
      ? ' (before the debugger attached: no method, headers or body)'
      : ` [id ${e.id}]`;
  const head = `#${e.seq} ${method} ${statusOf(e)} ${e.type} ${clipText(e.url, MAX_URL_CHARS)}${facts.length ? ` — ${facts.join(', ')}` : ''}${tail}`;
  if (!opts.headers || e.source === 'timing') return head;
  return [
    head,
    ...headerLines('request headers', e.requestHeaders),
    ...headerLines('response headers', e.responseHeaders),
  ].join('\n');
}
