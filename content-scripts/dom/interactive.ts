/**
 * Which elements the model can act on, and under which role it sees them. Native controls and
 * ARIA widgets are obvious; framework "div buttons" are found by what makes them clickable for
 * a user: an inline onclick, a tabindex, or the pointer cursor starting on them.
 */
import {
  implicitRole,
  INTERACTIVE_ROLES,
  isContentEditableRoot,
  isNativelyFocusable,
  SECTION_ROLES,
} from './roles';

/** Roles that are structure, even when focusable or under a pointer cursor. */
const STRUCTURAL_ROLES = new Set([
  ...SECTION_ROLES,
  'tabpanel',
  'list',
  'listbox',
  'menu',
  'menubar',
  'tablist',
  'tree',
  'grid',
  'table',
  'document',
  'application',
  'feed',
  'group',
  'radiogroup',
  'toolbar',
  'heading',
  'article',
  'iframe',
]);

const NATIVE_INTERACTIVE =
  'a[href],button,input:not([type=hidden]),select,textarea,[contenteditable],[role=button],[role=link]';

export interface Actionable {
  role: string;
  /** A generic clickable found by heuristics (shown as role `clickable`). */
  generic: boolean;
}

export function actionableOf(
  el: Element,
  role: string | null,
  style: CSSStyleDeclaration,
  parentCursorPointer: boolean,
  insideControl = false,
): Actionable | null {
  if (role !== null && INTERACTIVE_ROLES.has(role)) return { role, generic: false };
  if (role === 'textbox' || isContentEditableRoot(el)) return { role: 'textbox', generic: false };
  // Native controls stay actionable whatever role a page gives them (`<a href role=menu>`).
  if (isNativelyFocusable(el)) return { role: implicitRole(el) ?? 'clickable', generic: false };
  if (role !== null && STRUCTURAL_ROLES.has(role)) return null;
  const tag = el.localName;
  if (tag === 'html' || tag === 'body' || tag === 'label' || tag === 'option') return null;
  // Inside a control, spans under its pointer cursor are part of it, not targets of their own.
  if (insideControl) return null;

  const tabindex = el.getAttribute('tabindex');
  const focusable = tabindex !== null && Number(tabindex) >= 0;
  const onclick = el.hasAttribute('onclick');
  const pointerStart = style.cursor === 'pointer' && !parentCursorPointer;
  if (!focusable && !onclick && !pointerStart) return null;
  // A wrapper around real controls is not itself the target: its children carry the refs.
  if (!onclick && el.querySelector(NATIVE_INTERACTIVE)) return null;
  return { role: 'clickable', generic: true };
}
