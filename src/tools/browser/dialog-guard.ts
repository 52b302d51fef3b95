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
import type { BrowserHost } from './host';

export interface GuardedDialog {
  type: 'alert' | 'confirm' | 'prompt';
  message: string;
}

export const GUARD_MS = 4000;

/** Installs the guard once per document and arms it for `ms`. Runs in the page. */
export function armGuardInPage(ms: number): boolean {
  type Seen = { type: 'alert' | 'confirm' | 'prompt'; message: string };
  type Guard = { until: number; seen: Seen[] };
  const key = Symbol.for('keel.dialogGuard');
  const w = window as unknown as Record<symbol, Guard | undefined>;
  let guard = w[key];
  if (!guard) {
    const state: Guard = { until: 0, seen: [] };
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
    w[key] = state;
    guard = state;
  }
  guard.until = Date.now() + ms;
  return true;
}

/** Disarms the guard and returns the dialogs it answered. Runs in the page. */
export function collectGuardInPage(): Array<{ type: 'alert' | 'confirm' | 'prompt'; message: string }> {
  const key = Symbol.for('keel.dialogGuard');
  const guard = (window as unknown as Record<symbol, { until: number; seen: Array<{ type: 'alert' | 'confirm' | 'prompt'; message: string }> } | undefined>)[key];
  if (!guard) return [];
  guard.until = 0;
  return guard.seen.splice(0, guard.seen.length).slice(0, 5);
}

export async function armDialogGuard(host: BrowserHost, tabId: number, frameId: number): Promise<boolean> {
  return host.runInMainWorld(tabId, frameId, armGuardInPage, [GUARD_MS]).catch(() => false);
}

export async function collectGuardedDialogs(host: BrowserHost, tabId: number, frameId: number): Promise<GuardedDialog[]> {
  const seen = await host.runInMainWorld(tabId, frameId, collectGuardInPage, []).catch(() => []);
  return Array.isArray(seen) ? seen.filter((d) => d && typeof d.message === 'string').map((d) => ({ type: d.type, message: d.message })) : [];
}

export function describeGuarded(d: GuardedDialog): string {
  const answer = d.type === 'alert' ? 'OK' : d.type === 'confirm' ? 'Cancel' : 'no answer (Cancel)';
  return `The page showed a ${d.type} dialog; it was answered "${answer}" automatically, because synthetic input cannot wait for dialogs. To answer it differently, repeat the action with browser_mouse or browser_keyboard, then use browser_dialog.`;
}
