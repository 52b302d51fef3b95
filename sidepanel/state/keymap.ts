/**
 * Composer keys (PROTOCOL.md turn ops):
 * - Enter: send. Idle → turn.submit; while a run is active → turn.steer into the running turn.
 * - Shift+Alt+Enter: put the message in the queue (turn.enqueue) to start after this turn.
 * - Shift+Enter: a newline (the textarea's own behavior).
 * - Escape: interrupt the running turn.
 * Enter while an IME is composing (Chinese, Japanese input) only confirms the composition.
 */
export type ComposerAction = 'send' | 'enqueue' | 'interrupt' | null;

export interface KeyLike {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing?: boolean;
  keyCode?: number;
}

export function composerAction(e: KeyLike, runActive: boolean): ComposerAction {
  // keyCode 229: Chrome's marker for keys consumed by an IME, sometimes without isComposing.
  if (e.isComposing || e.keyCode === 229) return null;
  if (e.key === 'Escape') return runActive ? 'interrupt' : null;
  if (e.key !== 'Enter') return null;
  if (e.shiftKey && e.altKey) return 'enqueue';
  if (e.shiftKey) return null;
  if (e.altKey) return null;
  return 'send';
}
