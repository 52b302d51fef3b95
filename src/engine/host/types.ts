import type { ProviderResolver } from '../../providers/types';
import type { Store } from '../../store/store';
import type { RegisteredTool, ToolRegistry } from '../../tools/registry';
import type { Recorder } from '../../workflows/recording/recorder';
import type { FrameRecord } from '../../store/frames-repo';
import { DEFAULT_TOOL_RETRY, abortableSleep, type ToolRetryPolicy } from './retry-policy';

/** Time and identity are injected so tests can step the engine deterministically. */
export interface Clock {
  now(): number;
}

export interface IdSource {
  /** A new opaque id with a readable prefix ("thr", "run", "n", "call", …). */
  next(prefix: string): string;
}

/**
 * Effect boundaries, for the crash harness: the engine awaits `at(name)` before and after each
 * transaction, mid-stream and mid-tool. A test makes one of them never resolve (the worker
 * "died" there) and opens a new engine over the same database.
 */
export interface FaultInjector {
  at(boundary: string): Promise<void> | void;
}

/** What the engine needs from the browser, kept this small so it runs under vitest. */
export interface BrowserEnv {
  /** The active tab of the focused window (a turn's default target). */
  activeTabId(): Promise<number | undefined>;
  /**
   * A tab's URL and title now, or undefined when the tab is gone (or there is no browser).
   * Used when the page goes to the user and comes back (issue 28). Contract: never throws.
   */
  tabLook?(tabId: number): Promise<{ url: string; title: string } | undefined>;
  /** Recording a workflow by demonstration; absent where there is no browser (tests, sim). */
  recorder?: Recorder;
  /**
   * The tools the tab's page offers now (WebMCP), registered in the tool registry
   * (src/tools/page/page-tools.ts). Contract: never throws; no tools → [].
   */
  pageTools?(tabId: number): Promise<readonly RegisteredTool[]>;
  /** Task recordings (issue 30): read by `thread.recording`, deleted with their thread. */
  frames?: FrameSource;
}

/** The store of task recordings (store/frames-repo.ts). Contract: reads never change a frame. */
export interface FrameSource {
  list(threadId: string, runId?: string): Promise<FrameRecord[]>;
  threadBytes(threadId: string): Promise<number>;
  deleteThread(threadId: string): Promise<number>;
}

export interface Logger {
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export interface EngineDeps {
  store: Store;
  registry: ToolRegistry;
  providers: ProviderResolver;
  clock?: Clock;
  ids?: IdSource;
  browser?: BrowserEnv;
  faults?: FaultInjector;
  log?: Logger;
  options?: Partial<EngineOptions>;
}

export interface EngineOptions {
  /** Generate a title with the task model after the first turn starts (best effort). */
  generateTitles: boolean;
  /** Model-call attempts per step before the run fails (persisted: crash loops cannot reset it). */
  maxModelAttempts: number;
  /** Largest op accepted, in bytes of its JSON. */
  maxOpBytes: number;
  /** Queue bound (PROTOCOL.md). */
  maxQueue: number;
  /** Upper bound on one tool call, so a hung page cannot wedge a run. */
  toolTimeoutMs: number;
  /** Bound on the serialized environment snapshot stored with a run. */
  maxSnapshotBytes: number;
  /**
   * Receipts kept (spec/001 §5.1): a repeated submission replays its first outcome while its
   * receipt exists. Older than `receiptTtlMs` or beyond `maxReceipts` (oldest first) they go.
   */
  maxReceipts: number;
  receiptTtlMs: number;
  /** Retries of retry-safe tools on transient failures (spec/004). */
  toolRetry: ToolRetryPolicy;
  /** The wait between those retries; injected so tests do not wait (must reject on abort). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const DEFAULT_OPTIONS: EngineOptions = {
  generateTitles: true,
  maxModelAttempts: 3,
  maxOpBytes: 24 * 1024 * 1024,
  maxQueue: 8,
  toolTimeoutMs: 120_000,
  maxSnapshotBytes: 512 * 1024,
  maxReceipts: 10_000,
  receiptTtlMs: 7 * 24 * 3600_000,
  toolRetry: DEFAULT_TOOL_RETRY,
  sleep: abortableSleep,
};

export const systemClock: Clock = { now: () => Date.now() };

export const randomIds: IdSource = {
  next(prefix) {
    const bytes = crypto.getRandomValues(new Uint8Array(10));
    return `${prefix}_${[...bytes]
      .map((b) => b.toString(36).padStart(2, '0'))
      .join('')
      .slice(0, 16)}`;
  },
};

export const consoleLogger: Logger = {
  warn: (msg, data) => console.warn(`[keel] ${msg}`, data ?? ''),
  error: (msg, data) => console.error(`[keel] ${msg}`, data ?? ''),
};
