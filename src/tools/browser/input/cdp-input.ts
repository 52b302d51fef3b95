/**
 * Trusted input through CDP (Input.dispatchMouseEvent / dispatchKeyEvent / insertText): the page
 * sees isTrusted events, exactly as from the user's mouse and keyboard.
 */
import type { DebuggerSessions } from '../debugger-sessions';
import type { Modifier } from './key-combo';
import { canonicalKey, keysOfText } from '../../../protocol/key-names';

export interface Point {
  x: number;
  y: number;
}

const MODIFIER_BITS: Record<Modifier, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

export function modifierMask(mods: readonly Modifier[]): number {
  return mods.reduce((m, k) => m | MODIFIER_BITS[k], 0);
}

type Button = 'left' | 'right' | 'middle';
const BUTTON_MASK: Record<Button, number> = { left: 1, right: 2, middle: 4 };

export async function mouseMove(
  d: DebuggerSessions,
  tabId: number,
  p: Point,
  mods: readonly Modifier[] = [],
  buttons = 0,
  button: Button | 'none' = 'none',
): Promise<void> {
  await d.send(tabId, 'Input.dispatchMouseEvent', {
    type: 'mouseMoved',
    x: p.x,
    y: p.y,
    modifiers: modifierMask(mods),
    buttons,
    button,
  });
}

/**
 * Asked just before each mouse event with the point it will be dispatched at: `false` stops the
 * sequence there (the receiver under the point was not cleared), nothing more is sent.
 */
export type InputGuard = (p: Point) => Promise<boolean>;
const unguarded: InputGuard = async () => true;

export interface ClickOptions {
  button: Button;
  clickCount: number;
  mods: readonly Modifier[];
  guard?: InputGuard;
}

/** Resolves false when the guard stopped it (then no press is left without its release). */
export async function mouseClick(
  d: DebuggerSessions,
  tabId: number,
  p: Point,
  { button, clickCount, mods, guard = unguarded }: ClickOptions,
): Promise<boolean> {
  if (!(await guard(p))) return false;
  await mouseMove(d, tabId, p, mods);
  for (let n = 1; n <= clickCount; n++) {
    const base = { x: p.x, y: p.y, button, clickCount: n, modifiers: modifierMask(mods) };
    if (!(await guard(p))) return false;
    await d.send(tabId, 'Input.dispatchMouseEvent', {
      ...base,
      type: 'mousePressed',
      buttons: BUTTON_MASK[button],
    });
    // The release always follows its press (a half click would leave the page's state stuck);
    // the click itself fires only where press and release share a document, judged above.
    await d.send(tabId, 'Input.dispatchMouseEvent', { ...base, type: 'mouseReleased', buttons: 0 });
  }
  return true;
}

export interface DragOptions {
  mods: readonly Modifier[];
  steps?: number;
  guard?: InputGuard;
}

/**
 * Press at `from`, move in steps (drag listeners need intermediate moves), release at `to`, at a
 * hand's pace: a native drag starts only after the page handled the press (a library may make
 * the item draggable on mousedown), and drop targets update on the dragover of each move. The
 * guard judges every point, the drop point included; when it stops the drag, the button is
 * released where the last cleared event was sent, so nothing is dropped anywhere new.
 */
export async function mouseDrag(
  d: DebuggerSessions,
  tabId: number,
  from: Point,
  to: Point,
  { mods, steps = 10, guard = unguarded }: DragOptions,
): Promise<boolean> {
  const m = modifierMask(mods);
  const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  if (!(await guard(from))) return false;
  await mouseMove(d, tabId, from, mods);
  await d.send(tabId, 'Input.dispatchMouseEvent', {
    type: 'mousePressed',
    x: from.x,
    y: from.y,
    button: 'left',
    buttons: 1,
    clickCount: 1,
    modifiers: m,
  });
  let at = from;
  const release = (p: Point) =>
    d.send(tabId, 'Input.dispatchMouseEvent', {
      type: 'mouseReleased',
      x: p.x,
      y: p.y,
      button: 'left',
      buttons: 0,
      clickCount: 1,
      modifiers: m,
    });
  // Cancel a native drag (Escape) before letting go where the last cleared event was sent.
  const cancel = async (): Promise<false> => {
    const esc = keyFields(NAMED.Escape);
    await d.send(tabId, 'Input.dispatchKeyEvent', { type: 'rawKeyDown', ...esc });
    await d.send(tabId, 'Input.dispatchKeyEvent', { type: 'keyUp', ...esc });
    await release(at);
    return false;
  };
  const moveTo = async (p: Point): Promise<boolean> => {
    if (!(await guard(p))) return cancel();
    await d.send(tabId, 'Input.dispatchMouseEvent', {
      type: 'mouseMoved',
      x: p.x,
      y: p.y,
      button: 'left',
      buttons: 1,
      modifiers: m,
    });
    at = p;
    return true;
  };
  await pause(50);
  for (let i = 1; i <= steps; i++) {
    const p = {
      x: from.x + ((to.x - from.x) * i) / steps,
      y: from.y + ((to.y - from.y) * i) / steps,
    };
    if (!(await moveTo(p))) return false;
    await pause(20);
  }
  // Once more on the spot: the drop target settles on the final position before the release.
  if (!(await moveTo(to))) return false;
  await pause(50);
  if (!(await guard(to))) return cancel();
  await release(to);
  return true;
}

interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

const NAMED: Record<string, KeyDef> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  ' ': { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16 },
};
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = { key: `F${i}`, code: `F${i}`, keyCode: 111 + i };

const SHIFTED = '~!@#$%^&*()_+{}|:"<>?';
const PUNCT_CODES: Record<string, [string, number]> = {
  '-': ['Minus', 189],
  '=': ['Equal', 187],
  '[': ['BracketLeft', 219],
  ']': ['BracketRight', 221],
  '\\': ['Backslash', 220],
  ';': ['Semicolon', 186],
  "'": ['Quote', 222],
  ',': ['Comma', 188],
  '.': ['Period', 190],
  '/': ['Slash', 191],
  '`': ['Backquote', 192],
};

/** The key a name presses, through the shared normalisation (key-names.ts). */
export function keyDef(input: string): KeyDef | null {
  const name = canonicalKey(input);
  if (name === null) return null;
  if (Object.hasOwn(NAMED, name)) return NAMED[name];
  if ([...name].length !== 1) return null;
  const upper = name.toUpperCase();
  if (/[a-z]/i.test(name))
    return { key: name, code: `Key${upper}`, keyCode: upper.charCodeAt(0), text: name };
  if (/[0-9]/.test(name))
    return { key: name, code: `Digit${name}`, keyCode: name.charCodeAt(0), text: name };
  const punct = Object.hasOwn(PUNCT_CODES, name) ? PUNCT_CODES[name] : undefined;
  if (punct) return { key: name, code: punct[0], keyCode: punct[1], text: name };
  return { key: name, code: '', keyCode: 0, text: name };
}

/** Editing commands Chrome runs for shortcuts only when they are named (dispatchKeyEvent `commands`). */
const SHORTCUT_COMMANDS: Record<string, string> = {
  a: 'selectAll',
  c: 'copy',
  x: 'cut',
  v: 'paste',
  z: 'undo',
  y: 'redo',
};

export async function pressKey(
  d: DebuggerSessions,
  tabId: number,
  name: string,
  mods: readonly Modifier[],
  /** Asked before the key's release: a keydown handler may have moved focus to another frame. */
  beforeRelease: () => Promise<boolean> = async () => true,
): Promise<boolean> {
  const def = keyDef(name);
  if (!def)
    throw new Error(
      `Unknown key "${name}". Use Enter, Escape, Tab, ArrowDown, PageDown, Backspace, F5, a single character…`,
    );
  const m = modifierMask(mods);
  const shortcut = mods.includes('Control') || mods.includes('Meta') || mods.includes('Alt');
  for (const mod of mods)
    await d.send(tabId, 'Input.dispatchKeyEvent', {
      type: 'rawKeyDown',
      ...keyFields(NAMED[mod]),
      modifiers: m,
    });
  let text = def.text;
  if (text && mods.includes('Shift') && /[a-z]/.test(text)) text = text.toUpperCase();
  const down: Record<string, unknown> = {
    ...keyFields(def),
    modifiers: m,
    type: text && !shortcut ? 'keyDown' : 'rawKeyDown',
  };
  if (text && !shortcut) {
    down.text = text;
    down.unmodifiedText = def.text;
  }
  const command = shortcut ? SHORTCUT_COMMANDS[def.key.toLowerCase()] : undefined;
  if (command) down.commands = [command];
  await d.send(tabId, 'Input.dispatchKeyEvent', down);
  // Not cleared: the releases are not sent (they would reach the frame focus moved to).
  if (!(await beforeRelease())) return false;
  await d.send(tabId, 'Input.dispatchKeyEvent', { type: 'keyUp', ...keyFields(def), modifiers: m });
  for (const mod of [...mods].reverse())
    await d.send(tabId, 'Input.dispatchKeyEvent', {
      type: 'keyUp',
      ...keyFields(NAMED[mod]),
      modifiers: 0,
    });
  return true;
}

function keyFields(def: KeyDef) {
  return {
    key: def.key,
    code: def.code,
    windowsVirtualKeyCode: def.keyCode,
    nativeVirtualKeyCode: def.keyCode,
  };
}

/** Text longer than this goes in with one insertText (one event: focus cannot move inside it). */
export const INSERT_TEXT_OVER = 300;

/** One key of typed text ("\r" and "\n" press Enter, "\t" Tab, as keysOfText names them). */
export async function typeChar(
  d: DebuggerSessions,
  tabId: number,
  ch: string,
  beforeRelease: () => Promise<boolean> = async () => true,
): Promise<boolean> {
  if (ch === 'Enter' || ch === 'Tab') return pressKey(d, tabId, ch, [], beforeRelease);
  const def = keyDef(ch);
  const shifted = /[A-Z]/.test(ch) || SHIFTED.includes(ch);
  const fields = def && def.keyCode ? keyFields(def) : { key: ch };
  await d.send(tabId, 'Input.dispatchKeyEvent', {
    type: 'keyDown',
    ...fields,
    text: ch,
    unmodifiedText: ch,
    modifiers: shifted ? 8 : 0,
  });
  if (!(await beforeRelease())) return false;
  await d.send(tabId, 'Input.dispatchKeyEvent', {
    type: 'keyUp',
    ...fields,
    modifiers: shifted ? 8 : 0,
  });
  return true;
}

/** Types text: key events per character for short text (listeners see each key), insertText for long text. */
export async function typeText(d: DebuggerSessions, tabId: number, text: string): Promise<void> {
  if (text.length > INSERT_TEXT_OVER) {
    await d.send(tabId, 'Input.insertText', { text });
    return;
  }
  for (const ch of keysOfText(text)) await typeChar(d, tabId, ch);
}

/**
 * Waits for trusted input to be acknowledged, but not past a dialog it opened: Chrome holds the
 * acknowledgement of the click until the dialog closes.
 */
export async function settleInput(
  input: Promise<void>,
  dialogOpen: () => boolean,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  maxMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let done = false;
  const finished = input.finally(() => {
    done = true;
  });
  const watch = (async () => {
    for (let waited = 0; waited < maxMs && !done && !dialogOpen(); waited += 50)
      await sleep(50, signal);
  })();
  await Promise.race([finished, watch]);
  finished.catch(() => undefined);
}
