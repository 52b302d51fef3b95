import { z } from 'zod';
import type { TimingSnapshot } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { scrubCredentials } from '../devtools/credential-redaction';
import { debuggerBarNote } from '../devtools/debugger-bar-note';
import { clipText, logPage } from '../devtools/log-page';
import { matchesNetworkFilter, type NetworkEntry } from '../devtools/network-entry';
import { renderNetworkEntry } from '../devtools/render-network';
import { TabIdParam } from '../params';
import { originOf } from '../restricted';
import { pageTarget, readablePage, tabIdFor } from '../target';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({
  tabId: TabIdParam,
  pattern: z
    .string()
    .max(500)
    .optional()
    .describe('Only requests whose URL contains this (case-insensitive).'),
  status: z
    .enum(['all', 'ok', 'errors', 'failed'])
    .default('all')
    .describe(
      'ok = 2xx/3xx; errors = status ≥ 400 or failed; failed = no response (network error, blocked).',
    ),
  types: z
    .array(z.string().max(30))
    .max(20)
    .optional()
    .describe(
      'Only these resource types: document, script, stylesheet, image, font, fetch, xhr, media, websocket, ping, other.',
    ),
  after: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Only requests after this number (the previous call’s "after" for the next page).'),
  limit: z.number().int().min(1).max(200).default(50).describe('Requests to return.'),
  includeHeaders: z
    .boolean()
    .default(false)
    .describe('Add request and response headers (credentials are always redacted).'),
  bodyOf: z
    .string()
    .max(100)
    .optional()
    .describe(
      'Return the response body of this request id (from "[id …]" in a previous result) instead of the list.',
    ),
  maxBodyChars: z
    .number()
    .int()
    .min(200)
    .max(20_000)
    .default(4000)
    .describe('Body characters to return.'),
});
type Params = z.infer<typeof Params>;

const MAX_RESULT_CHARS = 24_000;
const TEXTUAL =
  /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded|[\w.+-]+\+(json|xml)))|^image\/svg/;

/**
 * browser_network: the tab's requests. Those since the debugger attached come from CDP Network
 * (method, status, headers, body on request); those before, from the document's Resource Timing
 * buffer read in the content script's isolated world (no method, no headers). Headers are redacted
 * as they arrive (devtools-capture.ts), and a body from another origin than the tab's says so.
 */
export function networkTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_network',
    label: 'Read network',
    description:
      'List the tab’s network requests: method, URL, status, type, timing. Filter by URL text, status (errors, failed) or type; long lists come in pages (pass the returned "after"). includeHeaders adds headers (credentials redacted); bodyOf: <id> returns one response body. Requests made before the first call have no method or headers. Attaches the debugger (Chrome shows a debugging bar).',
    parameters: Params,
    level: 'L2',
    effects: 'read',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) => pageTarget(deps.host, tabIdFor(params, ctx)),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const tab = await readablePage(deps.host, tabId);
      const readTiming = () =>
        deps.client.call<TimingSnapshot>(
          tabId,
          0,
          { op: 'resource_timing', limit: 1000 },
          { signal, timeoutMs: 5000 },
        );
      const { attached } = await deps.devtools.startNetwork(tabId, ctx.runId, readTiming);
      const log = deps.devtools.networkOf(tabId);
      const known = deps.devtools.credentialsOf(tabId);
      const bar = debuggerBarNote(attached, 'network');
      const details = (info: Record<string, unknown>): BrowserToolDetails => ({
        tabId,
        urlAfter: tab.url,
        title: tab.title,
        info: { ...info, debuggerAttached: attached },
      });

      if (params.bodyOf !== undefined) {
        const text = await bodyText(deps, tabId, tab.url, log.entries, params, known);
        return {
          content: [
            {
              type: 'text',
              text: bar ? `${text.head}\n${bar}${text.body}` : text.head + text.body,
            },
          ],
          details: details({ bodyOf: params.bodyOf }),
        };
      }

      const filter = { pattern: params.pattern, status: params.status, types: params.types };
      const matching = log.entries.filter((e) => matchesNetworkFilter(e, filter));
      const page = logPage(
        matching,
        { after: params.after, limit: params.limit, maxChars: MAX_RESULT_CHARS },
        (e) => renderNetworkEntry(e, { headers: params.includeHeaders }),
      );
      const earlier = log.entries.filter((e) => e.source === 'timing').length;
      const filtered =
        params.pattern || params.status !== 'all' || params.types?.length ? ' matching' : '';
      const lines = [
        `Requests of tab ${tabId}: ${matching.length}${filtered} of ${log.entries.length}. ${earlier} from before the debugger started recording at ${new Date(log.since).toISOString()} (from the page's Resource Timing: no method, headers or body; status 0 when the browser hides it), the rest recorded by the debugger.`,
      ];
      if (log.timingError)
        lines.push(`Requests from before could not be read: ${clipText(log.timingError, 200)}`);
      if (log.dropped)
        lines.push(
          `The ${log.dropped} oldest requests were dropped: the log keeps the newest 1000.`,
        );
      if (page.first !== undefined)
        lines.push(
          `Showing ${page.lines.length}: #${page.first}–#${page.last}.${page.next !== undefined ? ` Truncated: ${page.remaining} more${filtered} requests; call again with after: ${page.next}.` : ''}`,
        );
      else
        lines.push(params.after !== undefined ? `Nothing after #${params.after}.` : 'No requests.');
      if (bar) lines.push(bar);
      const body = page.lines.length
        ? `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(tab.url, scrubCredentials(page.lines.join('\n'), known))}`
        : '';
      return {
        content: [{ type: 'text', text: scrubCredentials(lines.join('\n'), known) + body }],
        details: details({
          total: matching.length,
          shown: page.lines.length,
          ...(page.next !== undefined ? { next: page.next } : {}),
        }),
      };
    },
  };
}

/** One response body, clipped, scrubbed, and labelled when it is from another origin. */
async function bodyText(
  deps: BrowserToolDeps,
  tabId: number,
  tabUrl: string,
  entries: NetworkEntry[],
  params: Params,
  known: ReadonlySet<string>,
): Promise<{ head: string; body: string }> {
  const id = params.bodyOf ?? '';
  const entry = entries.find((e) => e.id === id || `#${e.seq}` === id || String(e.seq) === id);
  if (!entry)
    throw new Error(
      `No request with id ${id} in this tab's log. Use an id shown as "[id …]" by browser_network.`,
    );
  if (entry.source === 'timing')
    throw new Error(
      `Request #${entry.seq} was made before the debugger started recording: its body cannot be had. Reload the page (browser_navigate) to record it.`,
    );
  let got: { body: string; base64Encoded: boolean };
  try {
    got = await deps.devtools.responseBody(tabId, entry.id);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `The body of request #${entry.seq} is not available (${clipText(why, 200)}): it may have failed, been a redirect, or been evicted.`,
    );
  }
  const textual = !got.base64Encoded || TEXTUAL.test(entry.mimeType ?? '');
  const raw = got.base64Encoded && textual ? decodeBase64Text(got.body) : got.body;
  const origin = originOf(entry.url);
  const tabOrigin = originOf(tabUrl);
  const foreign =
    origin && origin !== tabOrigin
      ? ` This body is from another origin (${origin}), not the tab's (${tabOrigin ?? tabUrl}).`
      : '';
  if (!textual) {
    const bytes = Math.floor((got.body.length * 3) / 4);
    return {
      head: `Response body of request #${entry.seq} (${entry.mimeType ?? 'unknown type'}, about ${bytes} bytes) is binary: not shown.${foreign}`,
      body: '',
    };
  }
  const shown = clipText(raw, params.maxBodyChars);
  const cut =
    raw.length > params.maxBodyChars
      ? ` Truncated to ${params.maxBodyChars} of ${raw.length} characters.`
      : '';
  return {
    head: scrubCredentials(
      `Response body of request #${entry.seq} ${entry.method ?? ''} ${entry.url} (${entry.status ?? '?'}, ${entry.mimeType ?? 'unknown type'}).${foreign}${cut}`,
      known,
    ),
    body: `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(scrubCredentials(entry.url, known), scrubCredentials(shown, known))}`,
  };
}

function decodeBase64Text(b64: string): string {
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
