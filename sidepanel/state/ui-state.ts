/** Panel-only state: which screen is open and the transient hint under the composer. */
export type View = 'chat' | 'threads' | 'settings' | 'workflows';

export interface Hint {
  /** Increments per hint so the same text twice still re-announces. */
  id: number;
  tone: 'info' | 'error';
  text: string;
  /** A follow-up the hint offers as a button. */
  action?: 'openSettings';
}

export interface UiState {
  view: View;
  selectedThreadId: string | null;
  hint: Hint | null;
  /** Compact mode: runs of consecutive page reads fold into one row (kept across panel opens). */
  compactReads: boolean;
}

export const initialUiState: UiState = {
  view: 'chat',
  selectedThreadId: null,
  hint: null,
  compactReads: true,
};
