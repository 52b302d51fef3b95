/**
 * BrowserHost: everything the browser tools need from Chrome, as one small injected interface.
 * src/background/chrome-browser-host.ts implements it with chrome.*; unit tests use a fake.
 *
 * Contracts callers rely on:
 * - Methods reject with a `HostError` whose `code` says what happened; no other error type
 *   escapes (implementations translate chrome.runtime.lastError and API rejections).
 * - `sendToFrame` resolves with the content script's reply, or rejects with `no_receiver`
 *   (no content script in that frame yet), `port_closed` (the frame navigated or closed while
 *   answering), `timeout`, `no_tab` / `no_frame`, or `aborted`.
 * - Event subscriptions return an unsubscribe function and never throw.
 */
import type { GuardRule, ObservedRequest } from './guard/guard-policy';

export interface TabInfo {
  tabId: number;
  windowId: number;
  url: string;
  title: string;
  favIconUrl?: string;
  active: boolean;
  status: 'loading' | 'complete' | 'unloaded';
  openerTabId?: number;
  incognito: boolean;
  /** The URL being loaded while `status` is loading (Chrome's pendingUrl). */
  pendingUrl?: string;
}

export interface FrameInfo {
  frameId: number;
  /** The document the frame shows now (Chrome's documentId); absent where the host cannot tell. */
  documentId?: string;
  url: string;
  /** The frame's viewport size (CSS px): pairs it with its iframe element when URLs repeat. */
  width: number;
  height: number;
  /**
   * The origin the browser enforces for the frame's document: an about:blank or srcdoc frame
   * has its creator's (not the top page's), a sandboxed one "null".
   */
  origin?: string;
  /** Index in its parent's `window.frames`, from the top down (the top frame: []). */
  path?: number[];
}

export interface CapturedImage {
  mimeType: 'image/png' | 'image/jpeg';
  dataBase64: string;
  width: number;
  height: number;
}

export interface CaptureOptions {
  format: 'png' | 'jpeg';
  /** JPEG quality 0–100. */
  quality?: number;
  /** Downscale so the image is at most this wide (CSS px of the capture, keeps aspect). */
  maxWidth?: number;
  /**
   * A thumbnail nobody waits for: fail at once rather than wait out Chrome's capture rate limit
   * (two captures per second).
   */
  bestEffort?: boolean;
  /**
   * Nobody waits for it either, but it must be taken (a recording's frame): wait until Chrome's
   * rate limit has a free slot before capturing, so it never takes the slot of a tool's capture.
   */
  background?: boolean;
}

export type HostErrorCode =
  | 'no_tab'
  | 'no_frame'
  | 'no_receiver'
  | 'port_closed'
  | 'timeout'
  | 'aborted'
  | 'restricted'
  | 'debugger'
  | 'capture'
  | 'failed';

export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

export interface TabChange {
  tabId: number;
  /** Set when the URL changed (navigation commit, pushState, fragment). */
  url?: string;
  status?: 'loading' | 'complete';
  title?: string;
}

export interface DebuggerEvent {
  tabId: number;
  method: string;
  params: unknown;
}

/** A guard armed on one tab (request-guard.ts): what Chrome blocked there since it was armed. */
export interface ArmedRequestGuard {
  /** Requests in the tab that Chrome reported blocked by an extension, oldest first. */
  blocked(): ObservedRequest[];
  /**
   * With `newTabs`: top-frame navigations Chrome blocked in tabs opened after the guard was armed
   * (each with its `tabId`), oldest first. Empty otherwise.
   */
  newTabs(): ObservedRequest[];
  /** Removes the rules. Idempotent; never throws. */
  disarm(): Promise<void>;
}

export interface BrowserHost {
  // --- tabs -------------------------------------------------------------------------------
  getTab(tabId: number): Promise<TabInfo>;
  /** Tabs of every normal window (incognito tabs only when the extension is allowed there). */
  listTabs(): Promise<TabInfo[]>;
  createTab(opts: {
    url: string;
    active: boolean;
    openerTabId?: number;
    windowId?: number;
  }): Promise<TabInfo>;
  closeTab(tabId: number): Promise<void>;
  /** Makes the tab the active tab of its window and focuses that window. */
  activateTab(tabId: number): Promise<void>;
  navigate(tabId: number, url: string): Promise<void>;
  goBack(tabId: number): Promise<void>;
  reload(tabId: number): Promise<void>;
  onTabChanged(listener: (change: TabChange) => void): () => void;
  onTabCreated(listener: (tab: TabInfo) => void): () => void;
  onTabRemoved(listener: (tabId: number) => void): () => void;

  // --- content script ---------------------------------------------------------------------
  sendToFrame(
    tabId: number,
    frameId: number,
    message: unknown,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<unknown>;
  /** Injects the bundled content script into one frame (pages open before install, reloads). */
  injectContentScript(tabId: number, frameId: number): Promise<void>;
  /** Frames of a tab as the extension sees them (frames the extension may script). */
  listFrames(tabId: number): Promise<FrameInfo[]>;
  /**
   * Runs a self-contained function in the page's own JavaScript world (chrome.scripting MAIN
   * world) and returns its JSON-serializable result. Used only for the dialog guard.
   */
  runInMainWorld<A extends unknown[], R>(
    tabId: number,
    frameId: number,
    func: (...args: A) => R,
    args: A,
  ): Promise<R>;

  // --- capture ----------------------------------------------------------------------------
  /** The visible area of the window's active tab (the tab must be active in its window). */
  captureVisibleTab(windowId: number, opts: CaptureOptions): Promise<CapturedImage>;

  // --- debugger (L2) ----------------------------------------------------------------------
  debuggerAttach(tabId: number): Promise<void>;
  debuggerDetach(tabId: number): Promise<void>;
  debuggerSend<T = unknown>(
    tabId: number,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<T>;
  onDebuggerEvent(listener: (event: DebuggerEvent) => void): () => void;
  /**
   * Keel's content script in a tab's frame says the page is about to open a dialog (`open`
   * true; the page is held briefly so a debugger attached now sees it) or that its dialog
   * returned (dialog-hold.ts). The page may forge either: a hint, never proof.
   */
  onDialogSignal(listener: (tabId: number, frameId: number, open: boolean) => void): () => void;
  /** The debugger went away without us (the user closed the infobar, the tab closed). */
  onDebuggerDetached(listener: (tabId: number, reason: string) => void): () => void;

  // --- the navigation and request guard ---------------------------------------------------
  /**
   * Installs the rules `build(firstId)` returns (declarativeNetRequest session rules, ids from
   * `firstId`) and collects what Chrome then blocks in tab `tabId`, until `disarm`. With
   * `newTabs`, also holds every top-frame navigation in a tab opened while it is armed
   * (guard-policy.ts `newTabRule`); a tab another guard is armed on is never held by that rule.
   * Optional: a host without it (unit-test fakes) runs actions unguarded.
   */
  armRequestGuard?(
    tabId: number,
    build: (firstId: number) => GuardRule[],
    opts?: { newTabs?: boolean },
  ): Promise<ArmedRequestGuard>;

  // --- environment ------------------------------------------------------------------------
  /** Whether the user allowed the extension on file:// URLs. */
  fileSchemeAccess(): Promise<boolean>;
  /** `chrome-extension://<id>` of this extension. */
  readonly extensionOrigin: string;
  /** Survives service-worker restarts within the browser session (chrome.storage.session). */
  sessionGet<T>(key: string): Promise<T | undefined>;
  sessionSet(key: string, value: unknown): Promise<void>;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  setTimer(ms: number, fn: () => void): () => void;
}
