/**
 * A name for a control the page left unnamed, taken from the row it sits in: a todo item's
 * checkbox, a table row's selection box. The text beside it is what a sighted user reads as its
 * meaning. The line marks the name as derived (`(unlabelled, in row "…")`), so neither the model
 * nor an approval prompt mistakes it for the page's own label.
 */
import { composedClosest } from './composed';
import { clip, normalizeSpace } from './text';

/**
 * Roles whose meaning is their row's when unnamed. A button there is a row action (TodoMVC's
 * destroy button, a table row's icon button): the marked derivation tells which row it acts on,
 * never what it does.
 */
const DERIVED_ROLES = new Set(['checkbox', 'radio', 'switch', 'button']);
const ROW = 'li, tr, [role=row], [role=listitem], [role=option], [role=treeitem]';
const MAX_CHARS = 60;

/** The row text naming `el` when it has no name of its own; '' when none applies. */
export function rowNameOf(el: Element, role: string, name: string): string {
  if (name || !DERIVED_ROLES.has(role)) return '';
  const row = composedClosest(el, ROW);
  if (!row) return '';
  return clip(normalizeSpace(renderedText(row)), MAX_CHARS);
}

/**
 * The text of the list, table or grid row `el` sits in, without `el`'s own text ('' outside a
 * row): what tells apart controls that share one name (every row's "Delete").
 */
export function rowTextOf(el: Element): string {
  const row = composedClosest(el, ROW);
  if (!row) return '';
  const own = normalizeSpace((el as HTMLElement).innerText ?? '');
  let text = normalizeSpace(renderedText(row));
  if (own) text = normalizeSpace(text.replace(own, ' '));
  return clip(text, MAX_CHARS);
}

/**
 * The row's visible text. innerText of a shadow host is its light DOM only (a web component's
 * row reads empty), so a host's text is its (open) shadow tree's, with slots showing what is
 * assigned to them; hidden parts (a <style>, a closed editor) are skipped, never their source.
 */
function renderedText(el: Element, depth = 0): string {
  if (depth > 8) return '';
  const shadow = el.shadowRoot;
  const nodes =
    el.localName === 'slot'
      ? (el as HTMLSlotElement).assignedNodes({ flatten: true })
      : shadow
        ? Array.from(shadow.childNodes)
        : null;
  if (!nodes) return (el as HTMLElement).innerText ?? el.textContent ?? '';
  const parts: string[] = [];
  for (const n of nodes) {
    if (n.nodeType === 3) parts.push(n.textContent ?? '');
    if (n.nodeType !== 1) continue;
    const child = n as HTMLElement;
    if (typeof child.checkVisibility === 'function' && !child.checkVisibility()) continue;
    if (child.localName === 'style' || child.localName === 'script') continue;
    parts.push(renderedText(child, depth + 1));
  }
  return parts.join(' ');
}
