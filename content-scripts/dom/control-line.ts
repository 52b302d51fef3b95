/**
 * The one line format of an actionable element (PROTOCOL.md): `- role "name" [ref=e41]`, then
 * bracketed flags (`[type=email]`, `[checked]`, `[disabled]`…), then `: value` when it has one.
 * Shared by the snapshot, find and the element reports of acting tools, so the model sees the
 * same line everywhere.
 */
import { type DerivedName, derivedText } from './derived-name';
import { inputTypeHint } from './roles';
import type { ElementState } from './state';
import { clip, quote } from './text';

/** `derived`: what an unnamed control is called (dom/derived-name.ts), marked as such. */
export function controlLine(
  el: Element,
  role: string,
  name: string,
  ref: string,
  state: ElementState,
  href?: string,
  derived?: DerivedName,
): string {
  const shown = name ? ` ${quote(name)}` : derived ? derivedText(derived, quote) : '';
  let line = `- ${role}${shown} [ref=${ref}]`;
  const type = inputTypeHint(el);
  if (type) line += ` [type=${type}]`;
  for (const f of state.flags) line += ` [${f}]`;
  if (state.value !== null) line += `: ${state.value}`;
  if (href) line += ` -> ${clip(href, 120)}`;
  return line;
}
