/**
 * The text of a control that holds controls of its own, without theirs: a folder row's
 * "Inbox", not "Inbox Receipts Travel". Clipped, since it becomes a name.
 */
import { MAX_NAME_CHARS } from './names';
import { clip, normalizeSpace } from './text';

export function ownText(el: Element, inner: readonly Element[], max = MAX_NAME_CHARS): string {
  const skip = new Set(inner);
  const doc = el.ownerDocument;
  const walker = doc.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) =>
      skip.has(n as Element) || (n.nodeType === 1 && SKIPPED.has((n as Element).localName))
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  let text = '';
  for (let n = walker.nextNode(); n && text.length <= max * 2; n = walker.nextNode())
    if (n.nodeType === 3) text += ` ${(n as Text).data}`;
  return clip(normalizeSpace(text), max);
}

const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
