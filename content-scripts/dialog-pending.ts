/**
 * The content script's part of holding a dialog the page opens outside an agent action
 * (src/tools/browser/dialog-hold.ts): the page-world wrapper fires DIALOG_PENDING_EVENT just
 * before a dialog opens; this script asks the worker to attach its debugger and cancels the
 * event, which tells the wrapper to hold the page's thread while the worker attaches. The event
 * carries no data and the message none from the page: what the dialog says comes from the
 * debugger.
 */

/** How long the page is held for the worker to attach (attaching takes milliseconds). */
export const HOLD_MS = 1000;
/** The DOM event the page-world wrapper fires. */
export const DIALOG_PENDING_EVENT = 'keel-dialog-pending';
/** The content script's message to the worker. */
export const DIALOG_PENDING_MESSAGE = 'keel/dialog-pending';

/** Listens in the isolated world; `alive` is false once the extension was reloaded. */
export function listenForPendingDialogs(doc: Document, alive: () => boolean): void {
  doc.addEventListener(
    DIALOG_PENDING_EVENT,
    (event) => {
      if (!alive()) return;
      // Sent before the wrapper blocks the thread: the message leaves while the page waits.
      chrome.runtime.sendMessage({ kind: DIALOG_PENDING_MESSAGE }).catch(() => undefined);
      event.preventDefault();
    },
    true,
  );
}
