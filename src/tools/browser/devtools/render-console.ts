/** The model-facing lines of browser_console. Pure. */
import type { ConsoleEntry } from './console-entry';
import { clipText } from './log-page';

/** Longest message text shown (a page can log megabytes). */
export const MAX_MESSAGE_CHARS = 1000;
const MAX_STACK_LINES = 5;

/** `#12 [error] text — at url:line:col`, then up to five stack frames. */
export function renderConsoleEntry(e: ConsoleEntry): string {
  const kind = e.kind === 'exception' ? ' uncaught' : e.kind === 'browser' ? ' browser' : '';
  const at = e.source ? ` — at ${clipText(e.source, 300)}` : '';
  const head = `#${e.seq} [${e.level}${kind}] ${clipText(e.text, MAX_MESSAGE_CHARS)}${at}`;
  if (!e.stack?.length) return head;
  const frames = e.stack.slice(0, MAX_STACK_LINES).map((f) => `    at ${clipText(f, 300)}`);
  return [head, ...frames].join('\n');
}
