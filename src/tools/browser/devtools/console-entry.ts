/**
 * Console messages as CDP reports them, made into one flat shape. Three sources:
 * - `Runtime.consoleAPICalled`: the page's `console.*` calls;
 * - `Runtime.exceptionThrown`: uncaught exceptions and unhandled rejections;
 * - `Log.entryAdded`: what the browser itself logs for the page (failed loads, CSP violations,
 *   CORS refusals, deprecations).
 * `Runtime.enable` and `Log.enable` replay what Chrome kept for the current page before the
 * debugger attached (measured in Chromium 156: 5 console calls, 1 uncaught error and 5 browser
 * entries logged before attach all came back), so the log starts when the page loaded.
 * Pure: no clock, no chrome.*.
 */
import { matchesPattern } from './log-page';

export const CONSOLE_LEVELS = ['error', 'warning', 'info', 'log', 'debug'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

export interface ConsoleEntry {
  seq: number;
  level: ConsoleLevel;
  /** console: a console.* call; exception: uncaught; browser: Chrome's own entry (network, CSP…). */
  kind: 'console' | 'exception' | 'browser';
  text: string;
  /** `url:line:col` (1-based) where it was logged, or the failed resource's URL. */
  source?: string;
  /** Call frames, innermost first, as `fn (url:line:col)`. */
  stack?: string[];
  /** Epoch ms, as Chrome stamped it. */
  timestamp: number;
}

interface CallFrame {
  functionName?: string;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
}
interface RemoteObject {
  type?: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  preview?: { properties?: { name: string; value?: string; type?: string }[]; overflow?: boolean };
}

const MAX_FRAMES = 8;

function where(f: CallFrame | undefined): string | undefined {
  if (!f?.url) return undefined;
  return `${f.url}:${(f.lineNumber ?? 0) + 1}:${(f.columnNumber ?? 0) + 1}`;
}

function frames(trace: { callFrames?: CallFrame[] } | undefined): string[] | undefined {
  const list = trace?.callFrames ?? [];
  if (!list.length) return undefined;
  return list
    .slice(0, MAX_FRAMES)
    .map((f) => `${f.functionName || '(anonymous)'} (${where(f) ?? '?'})`);
}

/** One argument as DevTools would print it, without calling into the page (previews only). */
export function renderArg(arg: RemoteObject): string {
  if (arg.type === 'string') return String(arg.value);
  if (arg.unserializableValue !== undefined) return arg.unserializableValue;
  if (arg.type === 'undefined') return 'undefined';
  if (arg.value !== undefined) return JSON.stringify(arg.value) ?? String(arg.value);
  const props = arg.preview?.properties;
  if (props && arg.subtype !== 'error') {
    const inner = props.map(
      (p) => `${p.name}: ${p.type === 'string' ? JSON.stringify(p.value ?? '') : (p.value ?? '…')}`,
    );
    const body = `${inner.join(', ')}${arg.preview?.overflow ? ', …' : ''}`;
    return arg.subtype === 'array' ? `[${body}]` : `{${body}}`;
  }
  return arg.description ?? arg.type ?? '?';
}

/** `console.log('%s has %d', a, b)` substitution, then the remaining arguments space-separated. */
export function renderArgs(args: RemoteObject[]): string {
  if (!args.length) return '';
  const [first, ...rest] = args;
  if (first.type !== 'string' || !String(first.value).includes('%'))
    return args.map(renderArg).join(' ');
  const queue = [...rest];
  const head = String(first.value).replace(/%([sdifoOc%])/g, (m, c: string) => {
    if (c === '%') return '%';
    if (!queue.length) return m;
    const arg = queue.shift() as RemoteObject;
    if (c === 'c') return ''; // CSS styling: nothing to show
    if ((c === 'd' || c === 'i') && typeof arg.value === 'number')
      return String(Math.trunc(arg.value));
    return renderArg(arg);
  });
  return [head, ...queue.map(renderArg)].join(' ');
}

const API_LEVEL: Record<string, ConsoleLevel> = {
  error: 'error',
  assert: 'error',
  warning: 'warning',
  info: 'info',
  debug: 'debug',
};

const LOG_LEVEL: Record<string, ConsoleLevel> = {
  error: 'error',
  warning: 'warning',
  info: 'info',
  verbose: 'debug',
};

/** The entry a CDP event makes (seq still to assign), or null for events that are not messages. */
export function consoleEntryOf(method: string, params: unknown): Omit<ConsoleEntry, 'seq'> | null {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === 'Runtime.consoleAPICalled') {
    const type = String(p.type ?? 'log');
    if (type === 'endGroup' || type === 'clear') return null;
    const stack = frames(p.stackTrace as { callFrames?: CallFrame[] });
    const callFrames = (p.stackTrace as { callFrames?: CallFrame[] } | undefined)?.callFrames;
    const entry: Omit<ConsoleEntry, 'seq'> = {
      level: API_LEVEL[type] ?? 'log',
      kind: 'console',
      text: `${type === 'assert' ? 'Assertion failed: ' : ''}${renderArgs((p.args as RemoteObject[]) ?? [])}`,
      timestamp: Number(p.timestamp ?? 0),
    };
    const source = where(callFrames?.[0]);
    if (source) entry.source = source;
    // A log's first frame is its source; the frames of a trace, an error or a warning say how
    // the page got there (as DevTools shows them), a plain log's would only cost tokens.
    const level = entry.level;
    if (
      stack &&
      (type === 'trace' || ((level === 'error' || level === 'warning') && stack.length > 1))
    )
      entry.stack = stack;
    return entry;
  }
  if (method === 'Runtime.exceptionThrown') {
    const d = (p.exceptionDetails ?? {}) as {
      text?: string;
      url?: string;
      lineNumber?: number;
      columnNumber?: number;
      stackTrace?: { callFrames?: CallFrame[] };
      exception?: RemoteObject;
    };
    const description = d.exception?.description ?? d.exception?.value;
    // The description of an Error is "Error: msg\n    at …": its first line is the message.
    const message = description !== undefined ? String(description).split('\n')[0] : '';
    const text = [d.text ?? 'Uncaught', message].filter(Boolean).join(' ');
    const entry: Omit<ConsoleEntry, 'seq'> = {
      level: 'error',
      kind: 'exception',
      text,
      timestamp: Number(p.timestamp ?? 0),
    };
    const source =
      where(d.stackTrace?.callFrames?.[0]) ??
      where({ url: d.url, lineNumber: d.lineNumber, columnNumber: d.columnNumber });
    if (source) entry.source = source;
    const stack = frames(d.stackTrace);
    if (stack) entry.stack = stack;
    return entry;
  }
  if (method === 'Log.entryAdded') {
    const e = (p.entry ?? {}) as {
      level?: string;
      text?: string;
      url?: string;
      lineNumber?: number;
      timestamp?: number;
      stackTrace?: { callFrames?: CallFrame[] };
    };
    const entry: Omit<ConsoleEntry, 'seq'> = {
      level: LOG_LEVEL[e.level ?? ''] ?? 'info',
      kind: 'browser',
      text: String(e.text ?? ''),
      timestamp: Number(e.timestamp ?? 0),
    };
    if (e.url) entry.source = e.lineNumber !== undefined ? `${e.url}:${e.lineNumber + 1}` : e.url;
    const stack = frames(e.stackTrace);
    if (stack && stack.length > 1) entry.stack = stack;
    return entry;
  }
  return null;
}

export interface ConsoleFilter {
  levels?: readonly ConsoleLevel[];
  /** Case-insensitive substring of the text or the source URL. */
  pattern?: string;
}

export function matchesConsoleFilter(e: ConsoleEntry, f: ConsoleFilter): boolean {
  if (f.levels?.length && !f.levels.includes(e.level)) return false;
  return matchesPattern(f.pattern, e.text, e.source);
}
