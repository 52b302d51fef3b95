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
 * is held for up to HOLD_MS, then the real dialog opens — now under an enabled session, so
 * browser_dialog can answer it and the page gets that answer. Nothing is answered here: the
 * dialog stays open until the agent (browser_dialog) or the user answers it.
 *
 * The signal carries nothing: the dialog's type and message come from the debugger, never
 * from the page. A page can fire the event itself; that only attaches the debugger to a tab a
 * live run already uses (the worker checks), and a page can replace its own dialog functions
 * anyway. The function below runs in the page's world: self-contained (only its source is sent).
 */
import { DIALOG_PENDING_EVENT, HOLD_MS } from '../../../content-scripts/dialog-pending';
import type { BrowserHost } from './host';

/**
 * Wraps alert/confirm/prompt once per document (`mark`, a per-worker random name, says it is
 * done). Runs in the page. Returns false when it was already installed.
 */
export function holdDialogsInPage(holdMs: number, eventName: string, mark: string): boolean {
  if (Object.hasOwn(window, mark)) return false;
  Object.defineProperty(window, mark, { value: true, enumerable: false, configurable: false });
  const dispatch = EventTarget.prototype.dispatchEvent;
  const now = Date.now;
  const hold = () => {
    const event = new CustomEvent(eventName, { cancelable: true });
    // Cancelled = Keel's content script heard it and asked the worker to attach.
    if (dispatch.call(document, event)) return;
    const until = now() + holdMs;
    while (now() < until) {
      // The page's thread must stay here: the dialog has to open after the worker attached.
    }
  };
  const original = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
  window.alert = function alert(message?: unknown): void {
    hold();
    return original.alert.call(window, message);
  };
  window.confirm = function confirm(message?: string): boolean {
    hold();
    return original.confirm.call(window, message);
  };
  window.prompt = function prompt(message?: string, value?: string): string | null {
    hold();
    return original.prompt.call(window, message, value);
  };
  return true;
}

const MARK = `__kh${[...crypto.getRandomValues(new Uint8Array(8))]
  .map((b) => b.toString(16).padStart(2, '0'))
  .join('')}`;

/** Installs the hold in a tab's top document (best effort: restricted pages refuse scripts). */
export async function installDialogHold(host: BrowserHost, tabId: number): Promise<void> {
  await host
    .runInMainWorld(tabId, 0, holdDialogsInPage, [HOLD_MS, DIALOG_PENDING_EVENT, MARK])
    .catch(() => false);
}
