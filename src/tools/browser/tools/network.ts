import { z } from 'zod';
import type { TimingSnapshot } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { debuggerBarNote } from '../devtools/debugger-bar-note';
import { MAX_LOG_ENTRIES } from '../devtools/devtools-capture';
import { clipText, logPage, MAX_LOG_RESULT_CHARS } from '../devtools/log-page';
import { matchesNetworkFilter } from '../devtools/network-entry';
import { type Redactions, redactedNetworkEntry, redactText } from '../devtools/redacted-view';
import { responseBodyText } from '../devtools/response-body';
import { renderNetworkEntry } from '../devtools/render-network';
import { TabIdParam } from '../params';
import { knownValues } from '../secret-redaction';
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
    onDemand: {
      brief: 'the tab’s network requests (status, timing; headers and bodies on request)',
    },
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
      const redactions: Redactions = {
        credentials: deps.devtools.credentialsOf(tabId),
        secrets: await knownValues(deps.secrets),
      };
      const entries = log.entries.map((e) => redactedNetworkEntry(e, redactions));
      const bar = debuggerBarNote(attached, 'network');
      const details = (info: Record<string, unknown>): BrowserToolDetails => ({
        tabId,
        urlAfter: tab.url,
        title: tab.title,
        info: { ...info, debuggerAttached: attached },
      });

      if (params.bodyOf !== undefined) {
        const text = await responseBodyText({
          devtools: deps.devtools,
          tabId,
          tabUrl: tab.url,
          entries,
          id: params.bodyOf,
          maxChars: params.maxBodyChars,
          redactions,
        });
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
      const matching = entries.filter((e) => matchesNetworkFilter(e, filter));
      const page = logPage(
        matching,
        { after: params.after, limit: params.limit, maxChars: MAX_LOG_RESULT_CHARS },
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
          `The ${log.dropped} oldest requests were dropped: the log keeps the newest ${MAX_LOG_ENTRIES}.`,
        );
      if (page.first !== undefined)
        lines.push(
          `Showing ${page.lines.length}: #${page.first}–#${page.last}.${page.next !== undefined ? ` Truncated: ${page.remaining} more${filtered} requests; call again with after: ${page.next}.` : ''}`,
        );
      else
        lines.push(params.after !== undefined ? `Nothing after #${params.after}.` : 'No requests.');
      if (bar) lines.push(bar);
      const body = page.lines.length
        ? `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(redactText(tab.url, redactions), page.lines.join('\n'))}`
        : '';
      return {
        content: [{ type: 'text', text: lines.join('\n') + body }],
        details: details({
          total: matching.length,
          shown: page.lines.length,
          ...(page.next !== undefined ? { next: page.next } : {}),
        }),
      };
    },
  };
}
