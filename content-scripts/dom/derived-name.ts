/**
 * What a control the page left unnamed is called on its line, marked as derived so that neither
 * the model nor an approval card takes it for the page's own label: the icon it shows
 * (icon-name.ts) and the row it sits in (row-name.ts).
 */
import { iconNameOf } from './icon-name';
import { rowNameOf } from './row-name';
import type { StyleCache } from './visibility';

export interface DerivedName {
  icon?: string;
  row?: string;
}

/**
 * Roles an icon does not name: fields (their name is typed or chosen text) and toggles (their
 * row or label says what they toggle; the row's class is not theirs).
 */
const NOT_ICON_ROLES = new Set([
  'textbox',
  'searchbox',
  'combobox',
  'spinbutton',
  'slider',
  'checkbox',
  'radio',
  'switch',
]);

export function derivedNameOf(
  el: Element,
  role: string,
  name: string,
  styles: StyleCache,
): DerivedName | undefined {
  if (name) return undefined;
  const icon = NOT_ICON_ROLES.has(role) ? '' : iconNameOf(el, styles);
  const row = rowNameOf(el, role, name);
  if (!icon && !row) return undefined;
  return { ...(icon ? { icon } : {}), ...(row ? { row } : {}) };
}

/** ` (icon "trash", in row "Buy milk")`, ` (unlabelled, in row "…")` or ` (icon "star")`. */
export function derivedText(d: DerivedName, quote: (s: string) => string): string {
  const parts = [
    d.icon ? `icon ${quote(d.icon)}` : 'unlabelled',
    ...(d.row ? [`in row ${quote(d.row)}`] : []),
  ];
  return ` (${parts.join(', ')})`;
}
