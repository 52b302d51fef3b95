/**
 * The dialog guard for synthetic (L1) actions.
 *
 * alert/confirm/prompt block the page's only thread. After a synthetic click opened one, nothing
 * can answer it: the content script is blocked with the page, and the debugger cannot take over
 * a dialog that opened before it attached (Page.enable itself waits for the blocked page). So
 * for the few seconds of an L1 action, the page's dialog functions answer at once — alert: OK,
 * confirm: Cancel, prompt: no answer (the safe choices) — and the tool reports what the page
 * asked. To give another answer, the model repeats the action with the debugger tier, where
 * browser_dialog answers real dialogs.
 *
 * The functions below run in the page's world (chrome.scripting MAIN): they must be
 * self-contained (no imports, no closures) because only their source is sent.
 */
import type { BrowserHost } from '../host';

export interface GuardedDialog {
  type: 'alert' | 'confirm' | 'prompt';
  message: string;
}

export const GUARD_MS = 4000;

/**
 * Installs a guard armed for `ms`. Runs in the page. The state lives in a closure; the only
 * page-visible handle to it is a non-configurable property under a fresh random name per action
 * (`name`), which hands the state out only against a second secret (`proof`). So a page cannot
 * pre-seed it (as it could the old `Symbol.for` key: the name did not exist before), replace it,
 * or read it; a name that already exists is refused and never called. Each action wraps the
 * dialog functions once more; earlier guards stay disarmed and pass through.
 */
export function armGuardInPage(ms: number, name: string, proof: string): boolean {
  type Seen = { type: 'alert' | 'confirm' | 'prompt'; message: string };
  type Guard = { until: number; seen: Seen[] };
  if (name in window) return false;
  {
    const state: Guard = { until: Date.now() + ms, seen: [] };
    const original = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
    const armed = () => Date.now() < state.until;
    window.alert = function alert(message?: unknown): void {
      if (!armed()) return original.alert.call(window, message);
      state.seen.push({ type: 'alert', message: String(message ?? '') });
    };
    window.confirm = function confirm(message?: string): boolean {
      if (!armed()) return original.confirm.call(window, message);
      state.seen.push({ type: 'confirm', message: String(message ?? '') });
      return false;
    };
    window.prompt = function prompt(message?: string, value?: string): string | null {
      if (!armed()) return original.prompt.call(window, message, value);
      state.seen.push({ type: 'prompt', message: String(message ?? '') });
      return null;
    };
    const handle = (p: string) => (p === proof ? state : undefined);
    Object.defineProperty(window, name, {
      value: handle,
      enumerable: false,
      configurable: false,
      writable: false,
    });
  }
  return true;
}

/** Disarms the guard and returns the dialogs it answered. Runs in the page. */
export function collectGuardInPage(
  name: string,
  proof: string,
): Array<{ type: 'alert' | 'confirm' | 'prompt'; message: string }> {
  type Guard = {
    until: number;
    seen: Array<{ type: 'alert' | 'confirm' | 'prompt'; message: string }>;
  };
  const w = window as unknown as Record<string, ((p: string) => Guard | undefined) | undefined>;
  const guard = Object.hasOwn(w, name) ? w[name]?.(proof) : undefined;
  if (!guard) return [];
  guard.until = 0;
  return guard.seen.splice(0, guard.seen.length).slice(0, 5);
}

/** One armed guard's secrets: fresh per action, kept in the worker only. */
interface GuardSecrets {
  name: string;
  proof: string;
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

/** The guard armed last in each tab and frame, until collected. */
const armed = new Map<string, GuardSecrets>();

const DIALOG_TYPES = new Set(['alert', 'confirm', 'prompt']);
/** Dialog messages are page text: clipped like other page strings. */
const MAX_DIALOG_MESSAGE = 500;

/** Only real dialog types with string messages, clipped: the page wrote what comes back. */
export function acceptGuarded(seen: unknown): GuardedDialog[] {
  if (!Array.isArray(seen)) return [];
  const out: GuardedDialog[] = [];
  for (const d of seen.slice(0, 5)) {
    if (!d || typeof d !== 'object') continue;
    const { type, message } = d as { type?: unknown; message?: unknown };
    if (typeof type !== 'string' || !DIALOG_TYPES.has(type) || typeof message !== 'string')
      continue;
    out.push({
      type: type as GuardedDialog['type'],
      message:
        message.length > MAX_DIALOG_MESSAGE ? `${message.slice(0, MAX_DIALOG_MESSAGE)}…` : message,
    });
  }
  return out;
}

export async function armDialogGuard(
  host: BrowserHost,
  tabId: number,
  frameId: number,
): Promise<boolean> {
  const secrets = { name: `__k${randomHex(8)}`, proof: randomHex(16) };
  armed.delete(`${tabId}:${frameId}`);
  const ok = await host
    .runInMainWorld(tabId, frameId, armGuardInPage, [GUARD_MS, secrets.name, secrets.proof])
    .catch(() => false);
  // Only a guard this call installed is ever asked for its state (never a page's look-alike).
  if (ok === true) armed.set(`${tabId}:${frameId}`, secrets);
  return ok === true;
}

export async function collectGuardedDialogs(
  host: BrowserHost,
  tabId: number,
  frameId: number,
): Promise<GuardedDialog[]> {
  const secrets = armed.get(`${tabId}:${frameId}`);
  armed.delete(`${tabId}:${frameId}`);
  if (!secrets) return [];
  return acceptGuarded(
    await host
      .runInMainWorld(tabId, frameId, collectGuardInPage, [secrets.name, secrets.proof])
      .catch(() => []),
  );
}

export function describeGuarded(d: GuardedDialog): string {
  const answer = d.type === 'alert' ? 'OK' : d.type === 'confirm' ? 'Cancel' : 'no answer (Cancel)';
  return `The page showed a ${d.type} dialog; it was answered "${answer}" automatically, because synthetic input cannot wait for dialogs. To answer it differently, repeat the action with browser_mouse or browser_keyboard, then use browser_dialog.`;
}
