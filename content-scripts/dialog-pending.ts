/**
 * The content script's part of seeing a dialog the page opens outside an agent action
 * (src/tools/browser/dialogs/dialog-hold.ts): the page-world wrapper fires DIALOG_PENDING_EVENT just
 * before a dialog opens and DIALOG_CLOSED_EVENT after it returned; this script tells the worker
 * (which attaches its debugger on the first) and cancels the first, which tells the wrapper that
 * Keel heard it (only then does it hold the page's thread while the worker attaches). The events
 * carry no data, and the messages nothing from the page: what the dialog says comes from the
 * debugger. Runs in every frame.
 */

/** How long the page is held for the worker to attach (attaching takes milliseconds). */
export const HOLD_MS = 1000;
/** The DOM events the page-world wrapper fires. */
export const DIALOG_PENDING_EVENT = 'keel-dialog-pending';
export const DIALOG_CLOSED_EVENT = 'keel-dialog-closed';
/** The content script's message to the worker: `{ kind, open }`. */
export const DIALOG_SIGNAL_MESSAGE = 'keel/dialog-signal';
/** The worker's message to the content script: `{ kind, armed }`. */
export const DIALOG_ARM_MESSAGE = 'keel/dialog-arm';

/**
 * Listens in the isolated world; `alive` is false once the extension was reloaded, `trusted`
 * accepts only the worker. Until the worker arms it (only in tabs a live run uses), this script
 * ignores the events: a page elsewhere cannot tell Keel is installed from them, nor wake the
 * worker with them.
 */
export function listenForPageDialogs(
  doc: Document,
  alive: () => boolean,
  trusted: (sender: chrome.runtime.MessageSender) => boolean,
): void {
  let armed = false;
  chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
    const m = message as { kind?: unknown; armed?: unknown } | null;
    if (m?.kind !== DIALOG_ARM_MESSAGE || !trusted(sender)) return false;
    armed = m.armed === true;
    sendResponse(true);
    return false;
  });
  const tell = (open: boolean) =>
    chrome.runtime.sendMessage({ kind: DIALOG_SIGNAL_MESSAGE, open }).catch(() => undefined);
  doc.addEventListener(
    DIALOG_PENDING_EVENT,
    (event) => {
      if (!armed || !alive()) return;
      // Sent before the wrapper blocks the thread: the message leaves while the page waits.
      void tell(true);
      event.preventDefault();
    },
    true,
  );
  doc.addEventListener(
    DIALOG_CLOSED_EVENT,
    () => {
      if (armed && alive()) void tell(false);
    },
    true,
  );
}
