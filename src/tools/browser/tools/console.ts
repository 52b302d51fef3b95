import { z } from 'zod';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { CONSOLE_LEVELS, matchesConsoleFilter } from '../devtools/console-entry';
import { debuggerBarNote } from '../devtools/debugger-bar-note';
import { MAX_LOG_ENTRIES } from '../devtools/devtools-capture';
import { logPage, MAX_LOG_RESULT_CHARS } from '../devtools/log-page';
import { type Redactions, redactedConsoleEntry, redactText } from '../devtools/redacted-view';
import { renderConsoleEntry } from '../devtools/render-console';
import { TabIdParam } from '../params';
import { knownValues } from '../secret-redaction';
import { pageTarget, readablePage, tabIdFor } from '../target';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({
  tabId: TabIdParam,
  levels: z
    .array(z.enum(CONSOLE_LEVELS))
    .max(5)
    .optional()
    .describe('Only these levels (error, warning, info, log, debug). Default: all.'),
  pattern: z
    .string()
    .max(200)
    .optional()
    .describe('Only messages whose text or source URL contains this (case-insensitive).'),
  after: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Only messages after this number (the previous call’s "after" for the next page).'),
  limit: z.number().int().min(1).max(200).default(50).describe('Messages to return.'),
});
type Params = z.infer<typeof Params>;

/**
 * browser_console: the tab's console messages (console.*, uncaught errors, and what Chrome logs
 * for the page) through CDP Runtime and Log (devtools-capture.ts). A read: enabling those domains
 * dispatches nothing the page can observe (observable-reads e2e; a getter on a logged object is
 * not called, measured in Chromium 156).
 */
export function consoleTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_console',
    label: 'Read console',
    description:
      'Read the tab’s console: console.log/warn/error messages, uncaught errors with their stack, and browser messages (failed loads, CSP and CORS errors), since the page loaded. Filter by levels or a text; long logs come in pages (pass the returned "after"). Attaches the debugger (Chrome shows a debugging bar).',
    onDemand: { brief: 'the tab’s console messages and uncaught errors' },
    parameters: Params,
    level: 'L2',
    effects: 'read',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) => pageTarget(deps.host, tabIdFor(params, ctx)),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const tab = await readablePage(deps.host, tabId);
      const { attached } = await deps.devtools.startConsole(tabId, ctx.runId);
      const log = deps.devtools.consoleOf(tabId);
      const redactions: Redactions = {
        credentials: deps.devtools.credentialsOf(tabId),
        secrets: await knownValues(deps.secrets),
      };
      const filter = { levels: params.levels, pattern: params.pattern };
      const matching = log.entries
        .map((e) => redactedConsoleEntry(e, redactions))
        .filter((e) => matchesConsoleFilter(e, filter));
      const page = logPage(
        matching,
        { after: params.after, limit: params.limit, maxChars: MAX_LOG_RESULT_CHARS },
        renderConsoleEntry,
      );
      const filtered = params.levels?.length || params.pattern ? ' matching' : '';
      const lines = [
        `Console of tab ${tabId}: ${matching.length}${filtered} of ${log.entries.length} messages since the page loaded (Chrome replayed what it kept for the page when the debugger attached; later messages are kept, across navigations, until it detaches).`,
      ];
      if (log.dropped)
        lines.push(
          `The ${log.dropped} oldest messages were dropped: the log keeps the newest ${MAX_LOG_ENTRIES}.`,
        );
      if (page.first !== undefined)
        lines.push(
          `Showing ${page.lines.length}: #${page.first}–#${page.last}.${page.next !== undefined ? ` Truncated: ${page.remaining} more${filtered} messages; call again with after: ${page.next}.` : ''}`,
        );
      else
        lines.push(params.after !== undefined ? `Nothing after #${params.after}.` : 'No messages.');
      const bar = debuggerBarNote(attached, 'console');
      if (bar) lines.push(bar);
      const body = page.lines.length
        ? `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(redactText(tab.url, redactions), page.lines.join('\n'))}`
        : '';
      return {
        content: [{ type: 'text', text: lines.join('\n') + body }],
        details: {
          tabId,
          urlAfter: tab.url,
          title: tab.title,
          info: {
            total: matching.length,
            shown: page.lines.length,
            ...(page.next !== undefined ? { next: page.next } : {}),
            debuggerAttached: attached,
          },
        },
      };
    },
  };
}
