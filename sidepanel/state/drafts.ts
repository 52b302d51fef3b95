import { KeyedStore } from './external-store';

/**
 * What the user is typing, per thread ('' = the new-chat composer). It lives outside the
 * component so the text survives re-mounts (a new thread created on send), reconnects and panel
 * reloads (sessionStorage). The composer is controlled from here, and a failed send writes the
 * text back here, so it is never lost.
 */
type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const PREFIX = 'keel.draft.';

export function draftKey(threadId: string | null): string {
  return threadId ?? '';
}

export class Drafts {
  readonly store = new KeyedStore<string>();

  constructor(private readonly storage: DraftStorage | null) {}

  get(threadId: string | null): string {
    const key = draftKey(threadId);
    const mem = this.store.get(key);
    if (mem !== undefined) return mem;
    let saved = '';
    try {
      saved = this.storage?.getItem(PREFIX + key) ?? '';
    } catch {
      /* no storage */
    }
    // Seed the store silently so subscribers compare against the same value.
    if (saved) this.store.set(key, saved);
    return saved;
  }

  set(threadId: string | null, text: string): void {
    const key = draftKey(threadId);
    if (this.store.get(key) === text) return;
    this.store.set(key, text);
    try {
      if (text) this.storage?.setItem(PREFIX + key, text);
      else this.storage?.removeItem(PREFIX + key);
    } catch {
      /* quota or no storage: memory still has it */
    }
  }
}
