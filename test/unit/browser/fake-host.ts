/**
 * An in-memory BrowserHost for unit tests: tabs, a scripted page (the content script's replies),
 * a scripted debugger, session storage and a manual clock.
 */
import {
  HostError,
  type BrowserHost,
  type CapturedImage,
  type DebuggerEvent,
  type FrameInfo,
  type TabChange,
  type TabInfo,
} from '../../../src/tools/browser/host';

type Listener<T> = (v: T) => void;

export type PageHandler = (
  tabId: number,
  frameId: number,
  request: { op: string; [k: string]: unknown },
) => unknown | Promise<unknown>;

export class FakeHost implements BrowserHost {
  readonly extensionOrigin = 'chrome-extension://abcdefghijklmnop';
  tabs = new Map<number, TabInfo>();
  /** Frames without a content script until injectContentScript is called. */
  uninjected = new Set<string>();
  injected: string[] = [];
  sent: Array<{ tabId: number; frameId: number; request: { op: string; [k: string]: unknown } }> =
    [];
  page: PageHandler = () => ({ ok: true, result: {} });
  frames: FrameInfo[] = [];
  fileAccess = false;
  session = new Map<string, unknown>();
  debuggerAttached = new Set<number>();
  debuggerCommands: Array<{ tabId: number; method: string; params?: Record<string, unknown> }> = [];
  debuggerReply: (tabId: number, method: string, params?: Record<string, unknown>) => unknown =
    () => ({});
  captures = 0;
  mainWorldCalls: string[] = [];
  /** Every main-world call with its target and arguments. */
  mainWorldLog: Array<{ tabId: number; frameId: number; name: string; args: unknown[] }> = [];
  /** Messages to the content script that are not page requests (`{ kind, … }`). */
  scriptMessages: Array<{ tabId: number; frameId: number; message: unknown }> = [];
  /** Frames (`tab:frame`) a dialog blocks: scripts and messages there never run. */
  blockedFrames = new Set<string>();
  /** When set, debuggerAttach fails with this message (another debugger, no permission). */
  attachError?: string;
  mainWorldResult: (fnName: string) => unknown = (fn) => (fn === 'armGuardInPage' ? true : []);
  time = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextTimer = 1;
  private listeners = {
    changed: new Set<Listener<TabChange>>(),
    created: new Set<Listener<TabInfo>>(),
    removed: new Set<Listener<number>>(),
    dbgEvent: new Set<Listener<DebuggerEvent>>(),
    dbgDetached: new Set<(tabId: number, reason: string) => void>(),
    dialogSignal: new Set<(tabId: number, frameId: number, open: boolean) => void>(),
  };

  addTab(partial: Partial<TabInfo> & { tabId: number; url: string }): TabInfo {
    const tab: TabInfo = {
      windowId: 1,
      title: 'Title',
      active: true,
      status: 'complete',
      incognito: false,
      ...partial,
    };
    this.tabs.set(tab.tabId, tab);
    return tab;
  }

  emitChange(change: TabChange): void {
    const tab = this.tabs.get(change.tabId);
    if (tab) {
      if (change.url) tab.url = change.url;
      if (change.status) tab.status = change.status;
      if (change.title) tab.title = change.title;
    }
    for (const l of this.listeners.changed) l(change);
  }

  emitCreated(tab: TabInfo): void {
    this.tabs.set(tab.tabId, tab);
    for (const l of this.listeners.created) l(tab);
  }

  emitDebugger(event: DebuggerEvent): void {
    for (const l of this.listeners.dbgEvent) l(event);
  }

  /** Keel's content script in a frame heard the page's dialog wrapper (open: before, else after). */
  emitDialogSignal(tabId: number, open: boolean, frameId = 0): void {
    for (const l of this.listeners.dialogSignal) l(tabId, frameId, open);
  }

  emitDetached(tabId: number): void {
    this.debuggerAttached.delete(tabId);
    for (const l of this.listeners.dbgDetached) l(tabId, 'canceled_by_user');
  }

  /** Advances the manual clock, running due timers. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
      await Promise.resolve();
    }
    this.time = end;
  }

  async getTab(tabId: number): Promise<TabInfo> {
    const tab = this.tabs.get(tabId);
    if (!tab) throw new HostError('no_tab', `No tab with id: ${tabId}.`);
    return { ...tab };
  }
  async listTabs(): Promise<TabInfo[]> {
    return [...this.tabs.values()].map((t) => ({ ...t }));
  }
  async createTab(opts: {
    url: string;
    active: boolean;
    openerTabId?: number;
    windowId?: number;
  }): Promise<TabInfo> {
    const tabId = Math.max(0, ...this.tabs.keys()) + 1;
    const tab = this.addTab({
      tabId,
      url: opts.url,
      active: opts.active,
      openerTabId: opts.openerTabId,
      status: 'loading',
    });
    queueMicrotask(() => this.emitChange({ tabId, status: 'complete' }));
    return { ...tab };
  }
  async closeTab(tabId: number): Promise<void> {
    this.tabs.delete(tabId);
    for (const l of this.listeners.removed) l(tabId);
  }
  async activateTab(tabId: number): Promise<void> {
    const tab = await this.getTab(tabId);
    for (const t of this.tabs.values())
      if (t.windowId === tab.windowId) t.active = t.tabId === tabId;
  }
  async navigate(tabId: number, url: string): Promise<void> {
    queueMicrotask(() => {
      this.emitChange({ tabId, status: 'loading', url });
      queueMicrotask(() => this.emitChange({ tabId, status: 'complete' }));
    });
  }
  async goBack(): Promise<void> {}
  async reload(): Promise<void> {}
  onTabChanged(l: Listener<TabChange>) {
    this.listeners.changed.add(l);
    return () => this.listeners.changed.delete(l);
  }
  onTabCreated(l: Listener<TabInfo>) {
    this.listeners.created.add(l);
    return () => this.listeners.created.delete(l);
  }
  onDialogSignal(l: (tabId: number, frameId: number, open: boolean) => void) {
    this.listeners.dialogSignal.add(l);
    return () => this.listeners.dialogSignal.delete(l);
  }
  onTabRemoved(l: Listener<number>) {
    this.listeners.removed.add(l);
    return () => this.listeners.removed.delete(l);
  }

  async sendToFrame(tabId: number, frameId: number, message: unknown): Promise<unknown> {
    if (!this.tabs.has(tabId)) throw new HostError('no_tab', 'No tab');
    if (this.uninjected.has(`${tabId}:${frameId}`))
      throw new HostError(
        'no_receiver',
        'Could not establish connection. Receiving end does not exist.',
      );
    if (this.blockedFrames.has(`${tabId}:${frameId}`)) return new Promise(() => undefined);
    // The worker's own messages to the content script (not page requests): the dialog arm.
    const kind = (message as { kind?: unknown }).kind;
    if (typeof kind === 'string') {
      this.scriptMessages.push({ tabId, frameId, message });
      return true;
    }
    const request = (message as { request: { op: string } }).request;
    this.sent.push({ tabId, frameId, request });
    return this.page(tabId, frameId, request);
  }
  async injectContentScript(tabId: number, frameId: number): Promise<void> {
    const tab = await this.getTab(tabId);
    if (tab.url.startsWith('chrome://'))
      throw new HostError('restricted', 'Cannot access a chrome:// URL');
    this.injected.push(`${tabId}:${frameId}`);
    this.uninjected.delete(`${tabId}:${frameId}`);
  }
  async listFrames(): Promise<FrameInfo[]> {
    return this.frames;
  }
  async runInMainWorld<A extends unknown[], R>(
    tabId: number,
    frameId: number,
    func: (...args: A) => R,
    args: A,
  ): Promise<R> {
    if (this.blockedFrames.has(`${tabId}:${frameId}`)) return new Promise<R>(() => undefined);
    this.mainWorldCalls.push(func.name);
    this.mainWorldLog.push({ tabId, frameId, name: func.name, args });
    return this.mainWorldResult(func.name) as R;
  }
  async captureVisibleTab(): Promise<CapturedImage> {
    this.captures++;
    return { mimeType: 'image/jpeg', dataBase64: 'AAAA', width: 800, height: 600 };
  }
  async debuggerAttach(tabId: number): Promise<void> {
    if (this.attachError) throw new HostError('debugger', this.attachError);
    this.debuggerAttached.add(tabId);
  }
  async debuggerDetach(tabId: number): Promise<void> {
    this.debuggerAttached.delete(tabId);
  }
  async debuggerSend<T>(
    tabId: number,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<T> {
    if (!this.debuggerAttached.has(tabId))
      throw new HostError('debugger', 'Debugger is not attached to the tab');
    this.debuggerCommands.push({ tabId, method, params });
    return this.debuggerReply(tabId, method, params) as T;
  }
  onDebuggerEvent(l: Listener<DebuggerEvent>) {
    this.listeners.dbgEvent.add(l);
    return () => this.listeners.dbgEvent.delete(l);
  }
  onDebuggerDetached(l: (tabId: number, reason: string) => void) {
    this.listeners.dbgDetached.add(l);
    return () => this.listeners.dbgDetached.delete(l);
  }
  async fileSchemeAccess(): Promise<boolean> {
    return this.fileAccess;
  }
  async sessionGet<T>(key: string): Promise<T | undefined> {
    return this.session.get(key) as T | undefined;
  }
  async sessionSet(key: string, value: unknown): Promise<void> {
    this.session.set(key, value);
  }
  now(): number {
    return this.time;
  }
  /** Sleeps pass at once (the code under test only sleeps to let pages react). */
  sleep = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
  setTimer(ms: number, fn: () => void): () => void {
    const id = this.nextTimer++;
    this.timers.push({ at: this.time + ms, fn, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }
  pendingTimers(): number {
    return this.timers.length;
  }
}
