/**
 * What the console and network reads say about the debugger. Reading either needs chrome.debugger,
 * and attaching it makes Chrome show its "started debugging this browser" bar: the user should
 * learn why from the result (and the tool card), not wonder. Pure.
 */
import { DEBUGGER_IDLE_MS } from '../debugger-sessions';

export function debuggerBarNote(attached: boolean, what: 'console' | 'network'): string | null {
  if (!attached) return null;
  const reading = what === 'console' ? 'console messages' : 'network requests';
  return `Keel attached the debugger to this tab to read its ${reading}, so Chrome shows its "started debugging this browser" bar. It detaches when this task ends or after ${Math.round(DEBUGGER_IDLE_MS / 1000)} s unused.`;
}
