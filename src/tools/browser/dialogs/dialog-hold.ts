/**
 * Holding a dialog the page opens on its own (a timer, outside any agent action) until the
 * debugger can see it.
 *
 * Chrome tells a debugger session about a JavaScript dialog only if the session's Page domain
 * was enabled before the dialog opened: a session enabled afterwards gets no
 * `Page.javascriptDialogOpening` and "No dialog is showing" from `Page.handleJavaScriptDialog`,
 * and its `Page.enable` waits for the blocked page. So in tabs a live run works in, the page's
 * dialog functions first signal Keel's content script (a cancelable DOM event, dispatched
 * synchronously), which asks the worker to attach; while the worker attaches, the page's thread
 * is held for HOLD_MS, then the real dialog opens — now under an enabled session, so
 * browser_dialog can answer it and the page gets that answer. After the dialog returns, a second
 * event says so (the worker then knows the page is no longer blocked, also when no debugger saw
 * the dialog). Nothing is answered here: the dialog stays open until the agent or the user
 * answers it.
 *
 * The wrapper has three modes, set by the worker per tab (outside-dialogs.ts):
 * - HOLD_MS: a live run uses the tab and no debugger session sees its dialogs: signal and hold;
 * - SIGNAL_ONLY: the session is attached with Page enabled (it sees dialogs), or it cannot be
 *   attached: signal the dialog's start and end, never hold;
 * - OFF: the run ended: the page's functions are called straight through.
 *
 * The signals carry nothing: the dialog's type and message come from the debugger, never from
 * the page. A page can fire them itself, replace the wrapper, or set its own mode; the worst
 * that does is slow the page itself, or attach the debugger to a tab a live run already uses
 * (the worker checks), and a page could replace its own dialog functions anyway. The function
 * below runs in the page's world: self-contained (only its source is sent).
 */
import {
  DIALOG_ARM_MESSAGE,
  DIALOG_CLOSED_EVENT,
  DIALOG_PENDING_EVENT,
  HOLD_MS,
} from '../../../../content-scripts/dialog-pending';
import { HostError, type BrowserHost, type FrameInfo } from '../host';

export { HOLD_MS };
/** Signal a dialog's start and end, never hold. */
export const SIGNAL_ONLY = 0;
/** Call the page's functions straight through. */
export const OFF = -1;

/**
 * Wraps alert/confirm/prompt once per document (unless `install` is false) and sets the mode
 * (`holdMs`: HOLD_MS, SIGNAL_ONLY or OFF). `mark` names the mode setter. Runs in the page.
 * Returns true when it installed the wrapper, false when it only set the mode (or did nothing).
 */
export function holdDialogsInPage(
  holdMs: number,
  events: [pending: string, closed: string],
  mark: string,
  install: boolean,
): boolean {
  const w = window as unknown as Record<string, unknown>;
  if (Object.hasOwn(w, mark)) {
    const setMode = w[mark];
    if (typeof setMode === 'function') setMode(holdMs);
    return false;
  }
  if (!install) return false;
  // A page that finds the setter can only change how long it holds itself.
  let mode = holdMs;
  Object.defineProperty(window, mark, {
    value: (ms: number) => {
      mode = Number(ms);
    },
    enumerable: false,
    configurable: false,
    writable: false,
  });
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Custom = CustomEvent;
  const now = Date.now;
  const [pending, closed] = events;
  const wrap =
    <A extends unknown[], R>(original: (...args: A) => R) =>
    (...args: A): R => {
      if (!(mode >= 0)) return original.apply(window, args);
      // Cancelled = Keel's content script heard it and asked the worker to attach.
      const heard = !dispatch.call(document, new Custom(pending, { cancelable: true }));
      if (heard && mode > 0) {
        const until = now() + mode;
        while (now() < until) {
          // The page's thread must stay here: the dialog has to open after the worker attached.
        }
      }
      try {
        return original.apply(window, args);
      } finally {
        if (heard) dispatch.call(document, new Custom(closed));
      }
    };
  window.alert = wrap(window.alert);
  window.confirm = wrap(window.confirm);
  window.prompt = wrap(window.prompt);
  return true;
}

const MARK_KEY = 'keel.browser.dialogHoldMark';
/** A frame a dialog blocks answers after it closed; the order of the calls is kept anyway. */
const ARM_OPTS = { timeoutMs: 5000 };
let mark: Promise<string> | undefined;

/**
 * The setter's name: random, and the same for the whole browser session (session storage), so a
 * worker that restarted finds the wrapper its predecessor installed instead of stacking a second
 * one under which the old mode would keep holding.
 */
function markOf(host: BrowserHost): Promise<string> {
  mark ??= (async () => {
    const stored = await host.sessionGet<string>(MARK_KEY).catch(() => undefined);
    if (typeof stored === 'string' && /^__kh[0-9a-f]{16}$/.test(stored)) return stored;
    const fresh = `__kh${[...crypto.getRandomValues(new Uint8Array(8))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('')}`;
    await host.sessionSet(MARK_KEY, fresh).catch(() => undefined);
    return fresh;
  })();
  return mark;
}

/**
 * Sets the mode in every frame of a tab that Keel may script, installing the wrapper where it
 * is missing unless `install` is false. Best effort: restricted frames refuse scripts, and a
 * frame a dialog blocks runs it only after the dialog closed. Resolves when every frame ran it.
 */
export async function setDialogHold(
  host: BrowserHost,
  tabId: number,
  mode: number,
  install = true,
  frames?: readonly FrameInfo[],
): Promise<boolean> {
  const name = await markOf(host);
  const listed = frames ?? (await host.listFrames(tabId).catch(() => []));
  const frameIds = listed.length ? listed.map((f) => f.frameId) : [0];
  const armed = mode !== OFF;
  const done = await Promise.all(
    frameIds.map(async (frameId) => {
      // The content script first: a wrapper it does not listen to does not hold the page.
      const arm = { kind: DIALOG_ARM_MESSAGE, armed };
      if (armed) await armFrame(host, tabId, frameId, arm);
      const ran = await host
        .runInMainWorld(tabId, frameId, holdDialogsInPage, [
          mode,
          [DIALOG_PENDING_EVENT, DIALOG_CLOSED_EVENT],
          name,
          install,
        ])
        .then(
          () => true,
          () => false,
        );
      if (!armed) await host.sendToFrame(tabId, frameId, arm, ARM_OPTS).catch(() => undefined);
      return ran;
    }),
  );
  return listed.length > 0 && done.every(Boolean);
}

/**
 * What a tab's wrappers were last brought to: the mode and each frame's document. Equal keys mean
 * nothing is left to do — every frame still shows the document that got the mode — so the
 * per-frame message and `chrome.scripting` call can be skipped. Null (never skip) when a frame's
 * document is unknown.
 */
export function holdKey(mode: number, frames: readonly FrameInfo[]): string | null {
  if (!frames.length || frames.some((f) => !f.documentId)) return null;
  const docs = frames.map((f) => `${f.frameId}:${f.documentId}`).sort();
  return `${mode}|${docs.join(',')}`;
}

/**
 * Arms one frame's content script, injecting it first where it is missing (a page loaded before
 * Keel was installed or reloaded), as the page tools do on their first call.
 */
async function armFrame(
  host: BrowserHost,
  tabId: number,
  frameId: number,
  arm: { kind: string; armed: boolean },
): Promise<void> {
  try {
    await host.sendToFrame(tabId, frameId, arm, ARM_OPTS);
  } catch (e) {
    if (!(e instanceof HostError) || e.code !== 'no_receiver') return;
    await host.injectContentScript(tabId, frameId).catch(() => undefined);
    await host.sendToFrame(tabId, frameId, arm, ARM_OPTS).catch(() => undefined);
  }
}
