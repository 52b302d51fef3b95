/**
 * The one normalisation of key names, shared by the Gatekeeper's judgement (key-combo.ts, the
 * key tools), the synthetic executor (content-scripts/actions/events.ts) and the trusted one
 * (cdp-input.ts). Every spelling a model may use — "return", "ENTER", "\r", "spacebar", " " —
 * maps to the same canonical KeyboardEvent `key`, so what is judged is what is pressed: a second
 * alias table in an executor would let an unjudged spelling through. Pure: safe in both bundles.
 */

/** Canonical `KeyboardEvent.key` values of the named keys (Space is ' ', as browsers report it). */
export const NAMED_KEYS = [
  'Enter',
  'Tab',
  'Escape',
  'Backspace',
  'Delete',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Insert',
  ' ',
  'Alt',
  'Control',
  'Meta',
  'Shift',
  'F1',
  'F2',
  'F3',
  'F4',
  'F5',
  'F6',
  'F7',
  'F8',
  'F9',
  'F10',
  'F11',
  'F12',
] as const;

// A null-prototype table: a model-chosen name like "toString" must not find Object's methods.
const ALIASES: Record<string, string> = Object.assign(
  Object.create(null) as Record<string, string>,
  {
    return: 'Enter',
    enter: 'Enter',
    '\r': 'Enter',
    '\n': 'Enter',
    '\r\n': 'Enter',
    '\t': 'Tab',
    esc: 'Escape',
    del: 'Delete',
    up: 'ArrowUp',
    down: 'ArrowDown',
    left: 'ArrowLeft',
    right: 'ArrowRight',
    pgup: 'PageUp',
    pgdn: 'PageDown',
    space: ' ',
    spacebar: ' ',
    ' ': ' ',
  },
);

const BY_LOWER = new Map<string, string>(NAMED_KEYS.map((k) => [k.toLowerCase(), k]));

/**
 * The canonical key for a name, case-insensitively for named keys; a single character stays
 * itself (case matters: "A" is Shift+a). Null when the name is no key at all.
 */
export function canonicalKey(name: string): string | null {
  if (name === '') return null;
  const alias = ALIASES[name] ?? ALIASES[name.toLowerCase()];
  if (alias) return alias;
  const named = BY_LOWER.get(name.toLowerCase());
  if (named) return named;
  return [...name].length === 1 ? name : null;
}

/** What a canonical key does by default to the element it is pressed on. */
export interface KeyEffect {
  /** Activates the focused element: follows a link, presses a button, toggles a checkbox. */
  activates: boolean;
  /** Submits the form of a focused text field (implicit submission). */
  submits: boolean;
  /** Moves focus to another element (which a later key in the same call then acts on). */
  movesFocus: boolean;
}

export function keyEffect(key: string): KeyEffect {
  return {
    activates: key === 'Enter' || key === ' ',
    submits: key === 'Enter',
    // Arrows move within a widget (a radio group, a listbox) and keep the focus path judged.
    movesFocus: key === 'Tab',
  };
}

/** The keys text typed character by character presses ("\r\n" is one Enter, as typed). */
export function keysOfText(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n/g, '\n')) out.push(canonicalKey(ch) ?? ch);
  return out;
}
