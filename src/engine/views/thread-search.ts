/**
 * Thread search (thread.search): which threads match a query in their title or in what was said
 * (user and assistant messages, notices), with a snippet around the first hit. Pure over records;
 * tool results (page content) are not searched: they are the sites' text, not the conversation.
 */
import type { NodeRecord, ThreadRecord } from '../../store/records';

export interface ThreadMatch {
  threadId: string;
  /** Where the words were found: the title, or the text of a message. */
  in: 'title' | 'text';
  /** About 100 characters around the first hit (text matches only). */
  snippet?: string;
  /** The message that matched (text matches only). */
  nodeId?: string;
}

/** Lower-cased words of a query; matching needs every word (in any order). */
export function queryWords(query: string): string[] {
  return query.toLocaleLowerCase().split(/\s+/).filter(Boolean).slice(0, 12);
}

function searchableText(n: NodeRecord): string | null {
  const item = n.item;
  if (item.kind === 'user_message' || item.kind === 'assistant_message' || item.kind === 'notice')
    return item.text;
  return null;
}

function snippetAround(text: string, word: string): string {
  const one = text.replace(/\s+/g, ' ');
  const at = Math.max(0, one.toLocaleLowerCase().indexOf(word));
  const start = Math.max(0, at - 40);
  const end = Math.min(one.length, at + word.length + 60);
  return `${start > 0 ? '…' : ''}${one.slice(start, end)}${end < one.length ? '…' : ''}`;
}

/**
 * A thread matches when every word is in its title, or every word is in one of its messages
 * (words split across two messages do not make a match: the snippet must show them together).
 */
export function matchThread(
  thread: ThreadRecord,
  nodes: NodeRecord[],
  words: string[],
): ThreadMatch | null {
  if (words.length === 0) return null;
  const title = (thread.title ?? '').toLocaleLowerCase();
  if (words.every((w) => title.includes(w))) return { threadId: thread.threadId, in: 'title' };
  for (const n of nodes.slice().sort((a, b) => a.seq - b.seq)) {
    const text = searchableText(n);
    if (!text) continue;
    const lower = text.toLocaleLowerCase();
    if (words.every((w) => lower.includes(w)))
      return {
        threadId: thread.threadId,
        in: 'text',
        snippet: snippetAround(text, words[0]),
        nodeId: n.id,
      };
  }
  return null;
}
