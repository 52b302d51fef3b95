/** "Control+Shift+K", "ctrl+a", "Enter", "+" → key and modifiers, as models write them. */
import { canonicalKey } from '../../../protocol/key-names';

export type Modifier = 'Alt' | 'Control' | 'Meta' | 'Shift';

const MODIFIER_NAMES: Record<string, Modifier> = {
  alt: 'Alt',
  option: 'Alt',
  control: 'Control',
  ctrl: 'Control',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  super: 'Meta',
  win: 'Meta',
  shift: 'Shift',
};

export interface KeyCombo {
  key: string;
  modifiers: Modifier[];
}

export function parseKeyCombo(input: string): KeyCombo {
  const trimmed = input.trim();
  // Whitespace is a key itself (" " the space bar, "\r" Enter, "\t" Tab): trimming must not
  // turn it into "no key", nor "\r" into a space.
  if (trimmed === '' && input.length > 0)
    return { key: canonicalKey(input) ?? canonicalKey(input[0]) ?? ' ', modifiers: [] };
  if (trimmed === '+' || trimmed.length === 1) return { key: trimmed, modifiers: [] };
  // "Control++" means Control and the plus key.
  const parts = trimmed.endsWith('++')
    ? [...trimmed.slice(0, -2).split('+'), '+']
    : trimmed.split('+');
  const modifiers: Modifier[] = [];
  let key = '';
  for (const raw of parts) {
    const p = raw.trim();
    const mod = Object.hasOwn(MODIFIER_NAMES, p.toLowerCase())
      ? MODIFIER_NAMES[p.toLowerCase()]
      : undefined;
    if (mod && !modifiers.includes(mod)) modifiers.push(mod);
    else if (p || raw === ' ') key = p || ' ';
  }
  if (!key) {
    if (modifiers.length) return { key: modifiers.pop() as string, modifiers };
    throw new Error(
      `"${input}" is not a key. Use names like Enter, Escape, Tab, ArrowDown, a, Control+a.`,
    );
  }
  // The canonical name is what the executors press (key-names.ts): judged and done alike.
  return { key: canonicalKey(key) ?? key, modifiers };
}
