/**
 * Per-tab console and network logs, recorded from the debugger session that the L2 tools share
 * (debugger-sessions.ts). A log starts on the first browser_console / browser_network call of a
 * session: that call enables the CDP domains (Runtime + Log, or Network), Chrome replays the
 * console messages it kept for the page, and the content script's Resource Timing read covers the
 * requests made before. A log lives as long as its session: when the debugger detaches (end of
 * run, idle, the user closed the bar) it is dropped, and the next call starts again.
 *
 * Contracts:
 * - Credential headers are redacted as events arrive (credential-redaction.ts); their values are
 *   kept only in `credentialsOf`, to scrub them from other text, never returned.
 * - Each log keeps the newest `maxEntries`; `dropped` counts what it let go.
 * - `seq` numbers only grow within a tab, across sessions, so a cursor never points back.
 */
import type { TimingSnapshot } from '../../../protocol/page-messages';
import type { DebuggerSessions } from '../debugger-sessions';
import type { BrowserHost } from '../host';
import { consoleEntryOf, type ConsoleEntry } from './console-entry';
import { credentialValues, redactHeaders } from './credential-redaction';
import { entriesFromTiming, networkChangeOf, type NetworkEntry } from './network-entry';

export const MAX_LOG_ENTRIES = 1000;
const COMMAND_TIMEOUT_MS = 5000;

interface Log<T> {
  entries: T[];
  dropped: number;
}

interface TabLogs {
  console?: Log<ConsoleEntry>;
  consoleReady?: Promise<void>;
  network?: Log<NetworkEntry> & { since: number; timingError?: string };
  networkReady?: Promise<void>;
  credentials: Set<string>;
}

/** What starting (or joining) a log took. */
export interface CaptureStart {
  /** This call attached the debugger (Chrome's debugging bar appeared because of it). */
  attached: boolean;
}

export interface NetworkLog extends Log<NetworkEntry> {
  /** Epoch ms the debugger started recording requests; earlier ones come from Resource Timing. */
  since: number;
  /** Why the requests from before could not be read, if they could not. */
  timingError?: string;
}

export class DevtoolsCapture {
  private readonly tabs = new Map<number, TabLogs>();
  private readonly nextSeq = new Map<number, number>();

  constructor(
    private readonly host: BrowserHost,
    private readonly debuggers: DebuggerSessions,
    private readonly maxEntries = MAX_LOG_ENTRIES,
  ) {
    host.onDebuggerEvent((e) => {
      const logs = this.tabs.get(e.tabId);
      if (logs) this.ingest(e.tabId, logs, e.method, e.params);
    });
    debuggers.onChange((c) => {
      if (c.kind === 'going') this.tabs.delete(c.tabId);
    });
    host.onTabRemoved((tabId) => {
      this.tabs.delete(tabId);
      this.nextSeq.delete(tabId);
    });
  }

  /** Attaches if needed and makes sure the console log of `tabId` is recording. */
  async startConsole(tabId: number, runId: string): Promise<CaptureStart> {
    const { logs, attached } = await this.session(tabId, runId);
    logs.consoleReady ??= (async () => {
      // Kept across a retry: a timed-out enable may still run (and replay) once the page is free.
      logs.console ??= { entries: [], dropped: 0 };
      // Both replay what Chrome kept for the page before now (console-entry.ts).
      await this.send(tabId, 'Runtime.enable');
      await this.send(tabId, 'Log.enable');
    })().catch((e) => {
      logs.consoleReady = undefined;
      throw e;
    });
    await logs.consoleReady;
    return { attached };
  }

  /**
   * Attaches if needed and makes sure the request log of `tabId` is recording; on its first call
   * in a session, `readTiming` (the content script's isolated-world read) supplies the requests
   * made before. A failed read leaves the log without them and says why (`timingError`).
   */
  async startNetwork(
    tabId: number,
    runId: string,
    readTiming: () => Promise<TimingSnapshot>,
  ): Promise<CaptureStart> {
    const { logs, attached } = await this.session(tabId, runId);
    logs.networkReady ??= (async () => {
      logs.network ??= { entries: [], dropped: 0, since: this.host.now() };
      const since = logs.network.since;
      await this.send(tabId, 'Network.enable');
      try {
        const snapshot = await readTiming();
        const earlier = entriesFromTiming(snapshot, since, this.peekSeq(tabId));
        this.nextSeq.set(tabId, this.peekSeq(tabId) + earlier.length);
        // Requests seen while reading are newer: the earlier ones go first. No cursor into this
        // log has been handed out yet, so renumbering them is safe.
        for (const e of logs.network.entries) e.seq = this.takeSeq(tabId);
        logs.network.entries.unshift(...earlier);
      } catch (e) {
        logs.network.timingError = e instanceof Error ? e.message : String(e);
      }
    })().catch((e) => {
      logs.networkReady = undefined;
      throw e;
    });
    await logs.networkReady;
    return { attached };
  }

  consoleOf(tabId: number): Log<ConsoleEntry> {
    return this.tabs.get(tabId)?.console ?? { entries: [], dropped: 0 };
  }

  networkOf(tabId: number): NetworkLog {
    return this.tabs.get(tabId)?.network ?? { entries: [], dropped: 0, since: this.host.now() };
  }

  /** Credential values seen in this tab's headers: scrub them from any text returned. */
  credentialsOf(tabId: number): ReadonlySet<string> {
    return this.tabs.get(tabId)?.credentials ?? new Set();
  }

  /** The response body of a request the debugger recorded in this session. */
  async responseBody(
    tabId: number,
    requestId: string,
  ): Promise<{ body: string; base64Encoded: boolean }> {
    return this.send(tabId, 'Network.getResponseBody', { requestId });
  }

  /**
   * A command that answers within COMMAND_TIMEOUT_MS or fails saying why it may not have. While
   * a JavaScript dialog is open, Runtime.enable, Log.enable and Network.enable do not answer at
   * all (measured in Chromium 156: no answer in 3 s); a read must not hang the run on it.
   */
  private send<T>(tabId: number, method: string, params?: Record<string, unknown>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const cancel = this.host.setTimer(COMMAND_TIMEOUT_MS, () =>
        reject(
          new Error(
            `The page did not answer the debugger (${method}) within ${COMMAND_TIMEOUT_MS / 1000} s: it may be blocked by a JavaScript dialog (answer it with browser_dialog) or a busy script. Try again after.`,
          ),
        ),
      );
      this.debuggers.send<T>(tabId, method, params).then(
        (v) => {
          cancel();
          resolve(v);
        },
        (e) => {
          cancel();
          reject(e);
        },
      );
    });
  }

  private async session(
    tabId: number,
    runId: string,
  ): Promise<{ logs: TabLogs; attached: boolean }> {
    const attached = !this.debuggers.isAttached(tabId);
    // A session that went away without telling us (a failed send) left stale logs behind. A
    // concurrent call's logs are never dropped here: they are made only once attached.
    if (attached) this.tabs.delete(tabId);
    await this.debuggers.acquire(tabId, runId);
    let logs = this.tabs.get(tabId);
    if (!logs) {
      logs = { credentials: new Set() };
      this.tabs.set(tabId, logs);
    }
    return { logs, attached };
  }

  private peekSeq(tabId: number): number {
    return this.nextSeq.get(tabId) ?? 1;
  }

  private takeSeq(tabId: number): number {
    const seq = this.peekSeq(tabId);
    this.nextSeq.set(tabId, seq + 1);
    return seq;
  }

  private push<T>(log: Log<T>, entry: T): void {
    log.entries.push(entry);
    if (log.entries.length > this.maxEntries) {
      log.entries.shift();
      log.dropped++;
    }
  }

  private ingest(tabId: number, logs: TabLogs, method: string, params: unknown): void {
    if (logs.console) {
      const entry = consoleEntryOf(method, params);
      if (entry) {
        this.push(logs.console, { seq: this.takeSeq(tabId), ...entry });
        return;
      }
    }
    const net = logs.network;
    if (!net) return;
    const change = networkChangeOf(method, params);
    if (change.kind === 'none') return;
    if (change.kind === 'add') {
      if (change.redirected) {
        // The same requestId continues after a redirect: the hop that redirected keeps its status.
        const hop = findLast(net.entries, change.entry.id);
        if (hop) {
          hop.id = `${hop.id}.r${hop.seq}`;
          hop.status = change.redirected.status;
          hop.statusText = change.redirected.statusText;
        }
      }
      this.push(net, { seq: this.takeSeq(tabId), ...this.redacted(logs, change.entry) });
      return;
    }
    const entry = findLast(net.entries, change.id);
    if (!entry) return;
    Object.assign(entry, this.redacted(logs, change.patch));
    if (change.endedAt !== undefined && entry.monoStart)
      entry.durationMs = Math.max(0, Math.round((change.endedAt - entry.monoStart) * 1000));
  }

  private redacted<T extends Partial<NetworkEntry>>(logs: TabLogs, e: T): T {
    const out = { ...e };
    for (const key of ['requestHeaders', 'responseHeaders'] as const) {
      const headers = e[key];
      if (!headers) continue;
      for (const [name, value] of Object.entries(headers))
        for (const v of credentialValues(name, value)) logs.credentials.add(v);
      out[key] = redactHeaders(headers);
    }
    return out;
  }
}

function findLast(entries: NetworkEntry[], id: string): NetworkEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].id === id) return entries[i];
  return undefined;
}
