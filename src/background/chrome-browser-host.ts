/**
 * BrowserHost over chrome.* (tabs, scripting, debugger, storage.session). The only place the
 * browser tools touch Chrome APIs; every Chrome error is translated into a HostError code.
 *
 * Chrome listeners are registered once, when the host is created (at service-worker start), and
 * fan out to the tools' subscriptions.
 */
import {
  HostError,
  type BrowserHost,
  type CapturedImage,
  type CaptureOptions,
  type DebuggerEvent,
  type FrameInfo,
  type HostErrorCode,
  type TabChange,
  type TabInfo,
} from '../tools/browser/host';
import { DIALOG_SIGNAL_MESSAGE } from '../../content-scripts/dialog-pending';
import { createChromeRequestGuard } from './request-guard';

/** Written into dist/ by scripts/build-content-script.mjs. */
export const CONTENT_SCRIPT_FILE = 'content-script.js';

export interface ChromeBrowserHostOptions {
  /** Content-script file to inject on demand (default content-script.js, the IIFE the build step writes). */
  contentScriptFile?: string;
}

class Fanout<A extends unknown[]> {
  private readonly listeners = new Set<(...args: A) => void>();
  add(listener: (...args: A) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(...args: A): void {
    for (const l of this.listeners) {
      try {
        l(...args);
      } catch {
        // A subscriber's bug must not break the others.
      }
    }
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Chrome's error strings → our codes (they are stable across versions, and all we have). */
export function classifyChromeError(message: string): HostErrorCode {
  if (/Receiving end does not exist|Could not establish connection/i.test(message))
    return 'no_receiver';
  if (/message port closed|message channel closed|port closed/i.test(message)) return 'port_closed';
  if (/No tab with id|Invalid tab ID|tab was closed/i.test(message)) return 'no_tab';
  if (/No frame with id|Frame with ID .* (was removed|is showing)|frame was removed/i.test(message))
    return 'no_frame';
  if (
    /Cannot access|cannot be scripted|chrome:\/\/ URL|extensions gallery|Missing host permission/i.test(
      message,
    )
  )
    return 'restricted';
  if (/debugger|Debugger|not attached|Another debugger|Detached/i.test(message)) return 'debugger';
  return 'failed';
}

function wrap(e: unknown, fallback: HostErrorCode = 'failed'): HostError {
  if (e instanceof HostError) return e;
  const message = errorMessage(e);
  const code = classifyChromeError(message);
  return new HostError(code === 'failed' ? fallback : code, message);
}

function toTabInfo(tab: chrome.tabs.Tab): TabInfo {
  const info: TabInfo = {
    tabId: tab.id ?? -1,
    windowId: tab.windowId,
    url: tab.url ?? tab.pendingUrl ?? '',
    title: tab.title ?? '',
    active: tab.active,
    status:
      tab.status === 'loading' ? 'loading' : tab.status === 'unloaded' ? 'unloaded' : 'complete',
    incognito: tab.incognito,
  };
  if (tab.favIconUrl) info.favIconUrl = tab.favIconUrl;
  if (tab.openerTabId !== undefined) info.openerTabId = tab.openerTabId;
  if (tab.pendingUrl) info.pendingUrl = tab.pendingUrl;
  return info;
}

function abortable<T>(
  p: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(new HostError('aborted', 'Interrupted.'));
    const timer = setTimeout(
      () =>
        done(() =>
          reject(new HostError('timeout', `${what} did not answer within ${timeoutMs} ms`)),
        ),
      timeoutMs,
    );
    const onAbort = () => done(() => reject(new HostError('aborted', 'Interrupted.')));
    let finished = false;
    function done(f: () => void) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      f();
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => done(() => resolve(v)),
      (e: unknown) => done(() => reject(wrap(e))),
    );
  });
}

async function dataUrlToImage(dataUrl: string, opts: CaptureOptions): Promise<CapturedImage> {
  const mimeType = opts.format === 'png' ? 'image/png' : 'image/jpeg';
  const blob = await (await fetch(dataUrl)).blob();
  const bitmap = await createImageBitmap(blob);
  try {
    const scale = opts.maxWidth && bitmap.width > opts.maxWidth ? opts.maxWidth / bitmap.width : 1;
    if (scale === 1) {
      return {
        mimeType,
        dataBase64: dataUrl.slice(dataUrl.indexOf(',') + 1),
        width: bitmap.width,
        height: bitmap.height,
      };
    }
    const width = Math.round(bitmap.width * scale);
    const height = Math.round(bitmap.height * scale);
    const canvas = new OffscreenCanvas(width, height);
    const g = canvas.getContext('2d');
    if (!g) throw new HostError('capture', 'no 2D canvas');
    g.drawImage(bitmap, 0, 0, width, height);
    const out = await canvas.convertToBlob({ type: mimeType, quality: (opts.quality ?? 80) / 100 });
    const bytes = new Uint8Array(await out.arrayBuffer());
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { mimeType, dataBase64: btoa(bin), width, height };
  } finally {
    bitmap.close();
  }
}

/**
 * Chrome's limit on captureVisibleTab: two calls in any second. Every capture is noted; a
 * background capture (a recording's frame) waits until the last two are a second old.
 */
function captureRateLimit() {
  const WINDOW_MS = 1050;
  const recent: number[] = [];
  return {
    /** Note a capture now. */
    note(): void {
      recent.push(Date.now());
      if (recent.length > 2) recent.shift();
    },
    async free(): Promise<void> {
      for (;;) {
        const oldest = recent.length < 2 ? undefined : recent[0];
        const wait = oldest === undefined ? 0 : oldest + WINDOW_MS - Date.now();
        if (wait <= 0) return;
        await new Promise((r) => setTimeout(r, wait));
      }
    },
  };
}

export function createChromeBrowserHost(options: ChromeBrowserHostOptions = {}): BrowserHost {
  const captureSlots = captureRateLimit();
  const tabChanged = new Fanout<[TabChange]>();
  const tabCreated = new Fanout<[TabInfo]>();
  const tabRemoved = new Fanout<[number]>();
  const debuggerEvent = new Fanout<[DebuggerEvent]>();
  const debuggerDetached = new Fanout<[number, string]>();
  const dialogSignal = new Fanout<[number, number, boolean]>();

  chrome.tabs.onUpdated.addListener((tabId, info) => {
    const change: TabChange = { tabId };
    if (info.url !== undefined) change.url = info.url;
    if (info.status === 'loading' || info.status === 'complete') change.status = info.status;
    if (info.title !== undefined) change.title = info.title;
    tabChanged.emit(change);
  });
  chrome.tabs.onCreated.addListener((tab) => tabCreated.emit(toTabInfo(tab)));
  chrome.tabs.onRemoved.addListener((tabId) => tabRemoved.emit(tabId));
  chrome.debugger.onEvent.addListener((source, method, params) => {
    if (source.tabId !== undefined) debuggerEvent.emit({ tabId: source.tabId, method, params });
  });
  // Only Keel's own content script (sender.id) in a tab's frame; the page cannot send this. The
  // tab and frame are Chrome's, never the message's.
  chrome.runtime.onMessage.addListener((message: unknown, sender) => {
    const m = message as { kind?: unknown; open?: unknown } | null;
    if (m?.kind !== DIALOG_SIGNAL_MESSAGE || sender.id !== chrome.runtime.id) return false;
    if (sender.tab?.id !== undefined && sender.frameId !== undefined)
      dialogSignal.emit(sender.tab.id, sender.frameId, m.open === true);
    return false;
  });
  chrome.debugger.onDetach.addListener((source, reason) => {
    if (source.tabId !== undefined) debuggerDetached.emit(source.tabId, String(reason));
  });

  const armRequestGuard = createChromeRequestGuard();
  const contentScriptFile = options.contentScriptFile ?? CONTENT_SCRIPT_FILE;
  const extensionOrigin = new URL(chrome.runtime.getURL('/')).origin;

  const host: BrowserHost = {
    extensionOrigin,

    async getTab(tabId) {
      try {
        return toTabInfo(await chrome.tabs.get(tabId));
      } catch (e) {
        throw wrap(e, 'no_tab');
      }
    },
    async listTabs() {
      const tabs = await chrome.tabs.query({ windowType: 'normal' });
      return tabs.filter((t) => t.id !== undefined).map(toTabInfo);
    },
    async createTab({ url, active, openerTabId, windowId }) {
      try {
        const props: chrome.tabs.CreateProperties = { url, active };
        if (openerTabId !== undefined) props.openerTabId = openerTabId;
        if (windowId !== undefined) props.windowId = windowId;
        return toTabInfo(await chrome.tabs.create(props));
      } catch (e) {
        throw wrap(e);
      }
    },
    async closeTab(tabId) {
      await chrome.tabs.remove(tabId).catch((e: unknown) => Promise.reject(wrap(e, 'no_tab')));
    },
    async activateTab(tabId) {
      try {
        const tab = await chrome.tabs.update(tabId, { active: true });
        if (tab?.windowId !== undefined)
          await chrome.windows.update(tab.windowId, { focused: true });
      } catch (e) {
        throw wrap(e, 'no_tab');
      }
    },
    async navigate(tabId, url) {
      await chrome.tabs.update(tabId, { url }).catch((e: unknown) => Promise.reject(wrap(e)));
    },
    async goBack(tabId) {
      await chrome.tabs.goBack(tabId).catch((e: unknown) => Promise.reject(wrap(e)));
    },
    async reload(tabId) {
      await chrome.tabs.reload(tabId).catch((e: unknown) => Promise.reject(wrap(e)));
    },
    armRequestGuard,
    onTabChanged: (l) => tabChanged.add(l),
    onTabCreated: (l) => tabCreated.add(l),
    onTabRemoved: (l) => tabRemoved.add(l),

    sendToFrame(tabId, frameId, message, { timeoutMs, signal }) {
      return abortable(
        chrome.tabs.sendMessage(tabId, message, { frameId }) as Promise<unknown>,
        timeoutMs,
        signal,
        'The page',
      );
    },
    async injectContentScript(tabId, frameId) {
      try {
        await chrome.scripting.executeScript({
          target: { tabId, frameIds: [frameId] },
          files: [contentScriptFile],
        });
      } catch (e) {
        throw wrap(e, 'restricted');
      }
    },
    async listFrames(tabId): Promise<FrameInfo[]> {
      try {
        const results = await chrome.scripting.executeScript({
          target: { tabId, allFrames: true },
          // Self-contained (it is serialized into each frame). `origin` is the one the browser
          // enforces (about:blank and srcdoc inherit their creator's); `path` is the frame's
          // place in the tree (content-scripts/actions/receiver.ts framePath).
          func: () => {
            const path: number[] = [];
            let w: Window = window;
            for (let depth = 0; w !== w.parent && depth < 32; depth++) {
              let index = -1;
              for (let i = 0; i < w.parent.frames.length; i++)
                if (w.parent.frames[i] === w) index = i;
              path.unshift(index);
              w = w.parent;
            }
            return {
              url: location.href,
              width: innerWidth,
              height: innerHeight,
              origin: self.origin,
              path,
            };
          },
        });
        return results.map((r) => {
          const v = (r.result ?? {}) as {
            url?: string;
            width?: number;
            height?: number;
            origin?: string;
            path?: number[];
          };
          return {
            frameId: r.frameId,
            ...(typeof r.documentId === 'string' ? { documentId: r.documentId } : {}),
            url: String(v.url ?? ''),
            width: Number(v.width ?? 0),
            height: Number(v.height ?? 0),
            ...(typeof v.origin === 'string' ? { origin: v.origin } : {}),
            ...(Array.isArray(v.path) ? { path: v.path.map(Number) } : {}),
          };
        });
      } catch (e) {
        throw wrap(e, 'restricted');
      }
    },

    async runInMainWorld<A extends unknown[], R>(
      tabId: number,
      frameId: number,
      func: (...args: A) => R,
      args: A,
    ): Promise<R> {
      try {
        const [result] = await chrome.scripting.executeScript({
          target: { tabId, frameIds: [frameId] },
          world: 'MAIN',
          func,
          args,
        });
        return result?.result as R;
      } catch (e) {
        throw wrap(e, 'restricted');
      }
    },

    async captureVisibleTab(windowId, opts) {
      if (opts.background) await captureSlots.free();
      const capture = () => {
        captureSlots.note();
        return chrome.tabs.captureVisibleTab(windowId, {
          format: opts.format,
          ...(opts.format === 'jpeg' ? { quality: opts.quality ?? 80 } : {}),
        });
      };
      try {
        let dataUrl: string;
        try {
          dataUrl = await capture();
        } catch (e) {
          // Chrome allows two captures per second; a screenshot right after a thumbnail waits.
          if (opts.bestEffort || !/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(errorMessage(e)))
            throw e;
          await new Promise((r) => setTimeout(r, 1000));
          dataUrl = await capture();
        }
        return await dataUrlToImage(dataUrl, opts);
      } catch (e) {
        throw wrap(e, 'capture');
      }
    },

    async debuggerAttach(tabId) {
      await chrome.debugger
        .attach({ tabId }, '1.3')
        .catch((e: unknown) => Promise.reject(new HostError('debugger', errorMessage(e))));
    },
    async debuggerDetach(tabId) {
      await chrome.debugger
        .detach({ tabId })
        .catch((e: unknown) => Promise.reject(new HostError('debugger', errorMessage(e))));
    },
    async debuggerSend<T>(
      tabId: number,
      method: string,
      params?: Record<string, unknown>,
    ): Promise<T> {
      try {
        return (await chrome.debugger.sendCommand({ tabId }, method, params)) as T;
      } catch (e) {
        throw new HostError('debugger', errorMessage(e));
      }
    },
    onDebuggerEvent: (l) => debuggerEvent.add(l),
    onDialogSignal: (l) => dialogSignal.add(l),
    onDebuggerDetached: (l) => debuggerDetached.add(l),

    fileSchemeAccess: () => chrome.extension.isAllowedFileSchemeAccess(),
    async sessionGet<T>(key: string): Promise<T | undefined> {
      const got = await chrome.storage.session.get(key);
      return got[key] as T | undefined;
    },
    async sessionSet(key, value) {
      await chrome.storage.session.set({ [key]: value });
    },
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new HostError('aborted', 'Interrupted.'));
        const t = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        const onAbort = () => {
          clearTimeout(t);
          reject(new HostError('aborted', 'Interrupted.'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    setTimer(ms, fn) {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  };
  return host;
}
