import { roleOf } from '../dom/roles';
import { clip, normalizeSpace, quote } from '../dom/text';

/** A short human description of an element for error messages: `button "OK"`, `<div#cookie-banner> "We use…"`. */
export function describeElement(el: Element): string {
  const role = roleOf(el);
  const text = clip(
    normalizeSpace(
      el.getAttribute('aria-label') ?? (el as HTMLElement).innerText ?? el.textContent ?? '',
    ),
    50,
  );
  if (role && role !== 'paragraph' && role !== 'listitem')
    return `${role}${text ? ` ${quote(text)}` : ''}`;
  const id = el.id ? `#${el.id}` : '';
  const cls =
    !id && typeof el.className === 'string' && el.className.trim()
      ? `.${el.className.trim().split(/\s+/)[0]}`
      : '';
  return `<${el.localName}${id}${cls}>${text ? ` ${quote(text)}` : ''}`;
}
