import type { AgentEvent, Item } from '../../src/protocol';
import { KeyedStore } from './external-store';

/** The part of an item that is still streaming. Absent once the item completes. */
export interface LiveItem {
  text: string;
  thinking: string;
  toolArgs: string;
  /** The latest progress line of an executing tool (each delta replaces the previous one). */
  toolProgress: string | null;
}

type Delta = Extract<AgentEvent, { type: 'item.delta' }>['delta'];

const EMPTY: LiveItem = { text: '', thinking: '', toolArgs: '', toolProgress: null };

/**
 * Streaming overlay, kept out of the thread state on purpose: a delta changes one entry here and
 * re-renders only the component subscribed to that item id (see useKeyed), while the thread's
 * path (and every other message) stays referentially identical.
 */
export class LiveItems {
  readonly store = new KeyedStore<LiveItem>();

  begin(item: Item): void {
    if (item.kind === 'assistant_message') {
      this.store.set(item.id, { ...EMPTY, text: item.text, thinking: item.thinking ?? '' });
    } else if (item.kind === 'tool_call') {
      this.store.set(item.id, { ...EMPTY });
    }
  }

  applyDelta(itemId: string, delta: Delta): void {
    const prev = this.store.get(itemId) ?? EMPTY;
    this.store.set(itemId, {
      text: delta.text ? prev.text + delta.text : prev.text,
      thinking: delta.thinking ? prev.thinking + delta.thinking : prev.thinking,
      toolArgs: delta.toolArgs ? prev.toolArgs + delta.toolArgs : prev.toolArgs,
      toolProgress: delta.toolProgress !== undefined ? delta.toolProgress : prev.toolProgress,
    });
  }

  end(itemId: string): void {
    this.store.delete(itemId);
  }

  isStreaming(itemId: string): boolean {
    return this.store.has(itemId);
  }

  /** A new snapshot is the truth: partial streams are never persisted, so drop them all. */
  reset(): void {
    this.store.clear();
  }
}
