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
  return clip(normalizeSpace((row as HTMLElement).innerText ?? row.textContent ?? ''), MAX_CHARS);
}
