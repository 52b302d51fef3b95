/**
 * Whether a JavaScript dialog blocks a tab, and what the model is told about it.
 *
 * A dialog blocks the page's thread: the content script, scripts Keel injects and every page
 * tool wait until it closes. So a tool on a blocked tab does not run; its result says which
 * dialog blocks the page and how to go on, instead of waiting for a page that cannot answer.
 * What the dialog says is page text: it reaches the model only inside an untrusted block.
 */
import type { OpenDialog } from '../debugger-sessions';
import { clipPageString } from '../page-strings';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

export type DialogBlock =
  | { kind: 'none' }
  /** The debugger saw it open: browser_dialog can answer it. */
  | { kind: 'seen'; dialog: OpenDialog }
  /** The page signalled a dialog no debugger session sees; `why` says why (if known). */
  | { kind: 'unseen'; why?: string };

export interface DialogFacts {
  /** A debugger session with the Page domain enabled is attached to the tab. */
  attached: boolean;
  /** The dialog that session reports open. */
  seen?: OpenDialog;
  /** Frames whose page signalled a dialog that has not returned, and still do not answer. */
  blockedFrames: number;
  /** Why the debugger could not be attached, when it was tried and failed. */
  unattachable?: string;
}

/**
 * The session's word wins while one is attached: it sees every dialog, and a page's forged
 * signal must not stop the tools. Without one, a signal counts only for frames that still do
 * not answer (so a forged or stale signal does not block anything).
 */
export function dialogBlock(facts: DialogFacts): DialogBlock {
  if (facts.seen) return { kind: 'seen', dialog: facts.seen };
  if (facts.attached || facts.blockedFrames === 0) return { kind: 'none' };
  return facts.unattachable ? { kind: 'unseen', why: facts.unattachable } : { kind: 'unseen' };
}

/** Added when the page did not answer and no dialog is known: it may be one Keel never saw. */
export const UNSEEN_DIALOG_HINT =
  'If a JavaScript dialog is open in the tab (one that opened before Keel could see it), nothing in the page answers until it is closed: ask the user to look at the tab and answer it.';

/** The model's text for a blocked tab (none for `none`). */
export function describeDialogBlock(
  tabId: number,
  block: DialogBlock,
  tabUrl: string,
): string | undefined {
  if (block.kind === 'none') return undefined;
  if (block.kind === 'seen') {
    const { dialog } = block;
    const what =
      dialog.type === 'beforeunload'
        ? `A "leave this page?" dialog (beforeunload) is open in tab ${tabId} and holds the navigation: the page stays until it is answered. Answer it with browser_dialog (accept = leave, dismiss = stay), or ask the user to answer it.`
        : `A JavaScript ${dialog.type} dialog the page opened is open in tab ${tabId} and blocks the page: nothing in it can be read or done until the dialog is answered. Answer it with browser_dialog (accept or dismiss; promptText for a prompt), or ask the user to answer it.`;
    const lines = [what];
    const text = [
      dialog.message ? `message: ${clipPageString(dialog.message)}` : '',
      dialog.defaultPrompt ? `default answer: ${clipPageString(dialog.defaultPrompt)}` : '',
    ].filter(Boolean);
    if (text.length)
      lines.push(UNTRUSTED_NOTE, untrustedPageContent(dialog.url || tabUrl, text.join('\n')));
    return lines.join('\n');
  }
  const why = block.why ? ` (its debugger could not attach: ${block.why})` : '';
  return `The page in tab ${tabId} is blocked by a JavaScript dialog that Keel cannot see or answer${why}. Nothing in the page can be read or done until the dialog is closed. Ask the user to answer the dialog in the tab themselves (or to let Keel attach its debugger: close DevTools or another debugger on the tab, and keep Keel's debugging bar), then continue.`;
}
