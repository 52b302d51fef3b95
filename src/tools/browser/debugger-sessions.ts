/**
 * chrome.debugger sessions for the L2 tools. Attaching shows Chrome's "started debugging this
 * browser" bar, so sessions are short-lived: attached on demand, detached when the run that used
 * them ends or is interrupted, and after IDLE_MS without use. The Page domain is enabled on
 * attach so a JavaScript dialog that is (or becomes) open is known to browser_dialog.
 */
import { HostError, type BrowserHost } from './host';

export const DEBUGGER_IDLE_MS = 30_000;

export interface OpenDialog {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
  url: string;
  defaultPrompt?: string;
}

interface Session {
  runIds: Set<string>;
  cancelIdle: () => void;
  dialog?: OpenDialog;
}

/**
 * A session became able to see dialogs (attached, Page enabled) or is about to stop seeing them.
 * `going` listeners of a detach Keel chose are awaited (bounded) before it detaches, so a
 * replacement (the outside-dialog hold) is in place first; `reason` is Chrome's when Chrome or
 * the user detached it.
 */
export type SessionChange =
  | { kind: 'ready'; tabId: number }
  | { kind: 'going'; tabId: number; reason?: string };

/** How long a detach waits for its `going` listeners (a page a dialog blocks never answers). */
const GOING_WAIT_MS = 300;

export class DebuggerSessions {
  private readonly sessions = new Map<number, Session>();
  private readonly attaching = new Map<number, Promise<void>>();
  private readonly changeListeners = new Set<(change: SessionChange) => unknown>();

  constructor(
    private readonly host: BrowserHost,
    private readonly idleMs = DEBUGGER_IDLE_MS,
  ) {
    host.onDebuggerEvent((e) => {
      const s = this.sessions.get(e.tabId);
      if (!s) return;
      if (e.method === 'Page.javascriptDialogOpening') s.dialog = parseDialog(e.params);
      else if (e.method === 'Page.javascriptDialogClosed') s.dialog = undefined;
    });
    host.onDebuggerDetached((tabId, reason) => {
      if (this.sessions.has(tabId)) void this.emit({ kind: 'going', tabId, reason });
      this.forget(tabId);
    });
    host.onTabRemoved((tabId) => this.forget(tabId));
  }

  onChange(listener: (change: SessionChange) => unknown): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private async emit(change: SessionChange): Promise<void> {
    const all = [...this.changeListeners].map(async (l) => l(change));
    await Promise.all(all).catch(() => undefined);
  }

  isAttached(tabId: number): boolean {
    return this.sessions.has(tabId);
  }

  /** Attaches if needed, records the run, and restarts the idle countdown. */
  async acquire(tabId: number, runId: string): Promise<void> {
    let session = this.sessions.get(tabId);
    if (!session) {
      let pending = this.attaching.get(tabId);
      if (!pending) {
        pending = this.attach(tabId).finally(() => this.attaching.delete(tabId));
        this.attaching.set(tabId, pending);
      }
      await pending;
      session = this.sessions.get(tabId);
      if (!session) throw new Error('The debugger detached while attaching. Try again.');
    }
    session.runIds.add(runId);
    this.touch(tabId);
  }

  private async attach(tabId: number): Promise<void> {
    try {
      await this.host.debuggerAttach(tabId);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (/already attached/i.test(why)) {
        throw new Error(
          'Another debugger (DevTools or an extension) is attached to this tab. Close it and try again.',
        );
      }
      throw new Error(`Could not attach the debugger to tab ${tabId}: ${why}`);
    }
    this.sessions.set(tabId, { runIds: new Set(), cancelIdle: () => undefined });
    // Page events report the dialogs our input opens. Enabling waits on the page, which a dialog
    // opened earlier keeps blocked: do not wait for it forever.
    await Promise.race([
      this.host.debuggerSend(tabId, 'Page.enable').catch(() => undefined),
      this.host.sleep(1500),
    ]);
    // Page.enable was sent: the browser reports dialogs from now on, even while the page is busy.
    if (this.sessions.has(tabId)) void this.emit({ kind: 'ready', tabId });
  }

  async send<T>(tabId: number, method: string, params?: Record<string, unknown>): Promise<T> {
    if (!this.sessions.has(tabId)) throw new Error('The debugger is not attached to this tab.');
    this.touch(tabId);
    try {
      return await this.host.debuggerSend<T>(tabId, method, params);
    } catch (e) {
      if (
        e instanceof HostError &&
        e.code === 'debugger' &&
        /detached|not attached/i.test(e.message)
      )
        this.forget(tabId);
      throw e;
    }
  }

  dialogOf(tabId: number): OpenDialog | undefined {
    return this.sessions.get(tabId)?.dialog;
  }

  clearDialog(tabId: number): void {
    const s = this.sessions.get(tabId);
    if (s) s.dialog = undefined;
  }

  private touch(tabId: number): void {
    const s = this.sessions.get(tabId);
    if (!s) return;
    s.cancelIdle();
    s.cancelIdle = this.host.setTimer(this.idleMs, () => {
      // Detaching would leave an open dialog that only this session sees unanswerable.
      if (this.sessions.get(tabId)?.dialog) this.touch(tabId);
      else void this.detach(tabId);
    });
  }

  async detach(tabId: number): Promise<void> {
    const s = this.sessions.get(tabId);
    if (!s) return;
    if (this.changeListeners.size) {
      await Promise.race([this.emit({ kind: 'going', tabId }), this.host.sleep(GOING_WAIT_MS)]);
      if (this.sessions.get(tabId) !== s) return;
    }
    this.forget(tabId);
    await this.host.debuggerDetach(tabId).catch(() => undefined);
  }

  /** A run ended or was interrupted: detach every tab it attached (other runs re-attach on demand). */
  async releaseRun(runId: string): Promise<void> {
    const tabs = [...this.sessions].filter(([, s]) => s.runIds.has(runId)).map(([tabId]) => tabId);
    await Promise.all(tabs.map((tabId) => this.detach(tabId)));
  }

  async detachAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((tabId) => this.detach(tabId)));
  }

  private forget(tabId: number): void {
    const s = this.sessions.get(tabId);
    if (!s) return;
    s.cancelIdle();
    this.sessions.delete(tabId);
  }
}

function parseDialog(params: unknown): OpenDialog {
  const p = (params ?? {}) as {
    type?: string;
    message?: string;
    url?: string;
    defaultPrompt?: string;
  };
  const type =
    p.type === 'confirm' || p.type === 'prompt' || p.type === 'beforeunload' ? p.type : 'alert';
  const dialog: OpenDialog = { type, message: String(p.message ?? ''), url: String(p.url ?? '') };
  if (typeof p.defaultPrompt === 'string') dialog.defaultPrompt = p.defaultPrompt;
  return dialog;
}
