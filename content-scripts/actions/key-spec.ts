/**
 * The KeyboardEvent fields of a key as Chromium sets them for a US layout: `key`, `code`,
 * `keyCode` (and so `which`), the text it types and whether Shift gives it.
 */
import { canonicalKey } from '../../src/protocol/key-names';

export interface KeySpec {
  key: string;
  code: string;
  keyCode: number;
  /** Text the key inserts (printable keys), if any. */
  text?: string;
  /** Typed with Shift on a US layout (capitals, `!`, `?`…): the events carry shiftKey. */
  shift?: boolean;
}

/** US-layout punctuation: [code, keyCode] of the key, and whether Shift gives this character. */
const PUNCTUATION: Record<string, [string, number, boolean]> = {};
for (const [code, keyCode, plain, shifted] of [
  ['Backquote', 192, '`', '~'],
  ['Minus', 189, '-', '_'],
  ['Equal', 187, '=', '+'],
  ['BracketLeft', 219, '[', '{'],
  ['BracketRight', 221, ']', '}'],
  ['Backslash', 220, '\\', '|'],
  ['Semicolon', 186, ';', ':'],
  ['Quote', 222, "'", '"'],
  ['Comma', 188, ',', '<'],
  ['Period', 190, '.', '>'],
  ['Slash', 191, '/', '?'],
  ['Digit1', 49, '', '!'],
  ['Digit2', 50, '', '@'],
  ['Digit3', 51, '', '#'],
  ['Digit4', 52, '', '$'],
  ['Digit5', 53, '', '%'],
  ['Digit6', 54, '', '^'],
  ['Digit7', 55, '', '&'],
  ['Digit8', 56, '', '*'],
  ['Digit9', 57, '', '('],
  ['Digit0', 48, '', ')'],
] as const) {
  if (plain) PUNCTUATION[plain] = [code, keyCode, false];
  PUNCTUATION[shifted] = [code, keyCode, true];
}

const KEY_CODES: Record<string, [string, number]> = {
  Enter: ['Enter', 13],
  Tab: ['Tab', 9],
  Escape: ['Escape', 27],
  Backspace: ['Backspace', 8],
  Delete: ['Delete', 46],
  ArrowUp: ['ArrowUp', 38],
  ArrowDown: ['ArrowDown', 40],
  ArrowLeft: ['ArrowLeft', 37],
  ArrowRight: ['ArrowRight', 39],
  Home: ['Home', 36],
  End: ['End', 35],
  PageUp: ['PageUp', 33],
  PageDown: ['PageDown', 34],
  ' ': ['Space', 32],
  Insert: ['Insert', 45],
  F1: ['F1', 112],
  F2: ['F2', 113],
  F3: ['F3', 114],
  F4: ['F4', 115],
  F5: ['F5', 116],
  F6: ['F6', 117],
  F7: ['F7', 118],
  F8: ['F8', 119],
  F9: ['F9', 120],
  F10: ['F10', 121],
  F11: ['F11', 122],
  F12: ['F12', 123],
};

/**
 * `Enter`, `a`, `ArrowDown`, `esc`… → the KeyboardEvent fields a page expects. Names go through
 * the Gatekeeper's own normalisation (key-names.ts): an alias only this side knew would run a
 * key the approval never judged.
 */
export function keySpec(name: string): KeySpec | null {
  const canonical = canonicalKey(name);
  if (canonical === null) return null;
  const named = Object.hasOwn(KEY_CODES, canonical) ? KEY_CODES[canonical] : undefined;
  if (named) {
    const [code, keyCode] = named;
    if (canonical === ' ') return { key: ' ', code, keyCode, text: ' ' };
    return { key: canonical, code, keyCode, text: canonical === 'Enter' ? '\r' : undefined };
  }
  if ([...canonical].length !== 1) return null;
  const ch = canonical;
  const upper = ch.toUpperCase();
  if (/^[a-z]$/i.test(ch))
    return {
      key: ch,
      code: `Key${upper}`,
      keyCode: upper.charCodeAt(0),
      text: ch,
      ...(ch !== ch.toLowerCase() ? { shift: true } : {}),
    };
  if (/[0-9]/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch };
  const punct = Object.hasOwn(PUNCTUATION, ch) ? PUNCTUATION[ch] : undefined;
  if (punct) {
    const [code, keyCode, shift] = punct;
    return { key: ch, code, keyCode, text: ch, ...(shift ? { shift } : {}) };
  }
  // Beyond a US keyboard (accented letters, other scripts): no physical key to name.
  return { key: ch, code: '', keyCode: 0, text: ch };
}
