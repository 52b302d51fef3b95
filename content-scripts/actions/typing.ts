/**
 * Typing into text fields and contenteditable editors.
 *
 * Text goes in through execCommand('insertText') where possible: it fires input like real
 * typing (a cancelable beforeinput is sent first, since execCommand sends none), updates
 * framework-controlled inputs (React tracks the value setter), keeps the editor's undo stack,
 * and counts as a user edit, so Chromium sends `change` on blur itself. Inputs without a text
 * caret (date, number, color…) get the value through the native setter plus input/change
 * events. Short text is typed key by key so autocomplete widgets that listen to keydown react.
 */
import type { AgentContext } from '../agent-context';
import type { ActionAck } from '../../src/protocol/page-messages';
import { beforeInput, dispatchKey, keySpec } from './events';
import { noteCommitted, noteEditStart, pressEnterToSubmit } from './enter';
import { describeElement } from './describe';
import { PageError } from '../page-error';
import { bringIntoView, type Deferred } from './pointer';

const KEY_BY_KEY_LIMIT = 200;
const CARETLESS_TYPES = new Set([
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
  'color',
  'range',
  'number',
]);
const TEXT_TYPES = new Set([
  '',
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  ...CARETLESS_TYPES,
]);

type Editable =
  | { kind: 'field'; el: HTMLInputElement | HTMLTextAreaElement; caretless: boolean }
  | { kind: 'rich'; el: HTMLElement };

function editableOf(el: Element): Editable | null {
  if (el.localName === 'textarea')
    return { kind: 'field', el: el as HTMLTextAreaElement, caretless: false };
  if (el.localName === 'input') {
    const input = el as HTMLInputElement;
    if (!TEXT_TYPES.has(input.type)) return null;
    return { kind: 'field', el: input, caretless: CARETLESS_TYPES.has(input.type) };
  }
  const h = el as HTMLElement;
  if (h.isContentEditable) return { kind: 'rich', el: h };
  // A wrapper (role=textbox or a label) around one real field: type into the field.
  const inner = el.querySelector('input, textarea, [contenteditable]:not([contenteditable=false])');
  return inner ? editableOf(inner) : null;
}

/** The native value setter: frameworks that wrap `value` still see the change. */
export function setNativeValue(
  el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
  value: string,
): void {
  const proto = Object.getPrototypeOf(el) as object;
  const desc = Object.getOwnPropertyDescriptor(proto, 'value');
  if (desc?.set) desc.set.call(el, value);
  else el.value = value;
}

function fire(el: Element, type: 'input' | 'change', data?: string): void {
  const view = (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
  const ev =
    type === 'input'
      ? new view.InputEvent('input', {
          bubbles: true,
          composed: true,
          inputType: 'insertText',
          data: data ?? null,
        })
      : new view.Event('change', { bubbles: true });
  el.dispatchEvent(ev);
}

export function typeText(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
  text: string,
  clear: boolean,
  submit: boolean,
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  const editable = editableOf(el);
  if (!editable) {
    ctx.fail(
      'not_actionable',
      `Element ${ref} (${describeElement(el)}) is not a text field. Use the ref of a textbox, searchbox or editable area.`,
    );
  }
  const target = editable.el;
  if ((target as HTMLInputElement).disabled)
    ctx.fail('not_actionable', `Element ${ref} is disabled.`);
  if ((target as HTMLInputElement).readOnly)
    ctx.fail('not_actionable', `Element ${ref} is read-only.`);
  if (editable.kind === 'field' && editable.caretless && text && !submit) {
    checkCaretlessFormat(ctx, ref, editable.el as HTMLInputElement, text);
  }
  bringIntoView(target);
  ctx.highlighter.show(target.getBoundingClientRect(), 'type');
  return {
    result: {
      docId: ctx.registry.docId,
      url: ctx.env.win.location.href,
      element: ctx.report(target),
    },
    doc: target.ownerDocument,
    run: async () => {
      const wasFocused = target.matches(':focus');
      target.focus({ preventScroll: true });
      // The page may disable or lock the field while handling its focus: a real keyboard could
      // not type there any more, so nothing is typed and the result says so.
      const locked = lockedOnFocus(target, editable.kind);
      if (locked)
        throw new PageError('not_actionable', `Element ${ref} ${locked}: nothing was typed.`);
      if (editable.kind === 'field' && !editable.caretless) noteEditStart(editable.el, wasFocused);
      if (editable.kind === 'field')
        await typeIntoField(editable.el, text, clear, editable.caretless);
      else await typeIntoRich(editable.el, text, clear);
      if (submit) {
        // The app's render for the last key lands before Enter, as between two real keystrokes.
        await nextTask();
        pressEnterToSubmit(target);
      }
    },
  };
}

function lockedOnFocus(el: HTMLElement, kind: 'field' | 'rich'): string | undefined {
  if (kind === 'rich')
    return el.isContentEditable ? undefined : 'stopped being editable when focused';
  const field = el as HTMLInputElement;
  if (field.disabled) return 'became disabled when focused';
  if (field.readOnly) return 'became read-only when focused';
  return undefined;
}

function checkCaretlessFormat(
  ctx: AgentContext,
  ref: string,
  input: HTMLInputElement,
  text: string,
): void {
  const formats: Record<string, RegExp> = {
    date: /^\d{4}-\d{2}-\d{2}$/,
    time: /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/,
    'datetime-local': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/,
    month: /^\d{4}-\d{2}$/,
    week: /^\d{4}-W\d{2}$/,
    color: /^#[0-9a-fA-F]{6}$/,
    number: /^-?\d*\.?\d+(e-?\d+)?$/i,
    range: /^-?\d*\.?\d+$/,
  };
  const examples: Record<string, string> = {
    date: '2024-05-31',
    time: '14:30',
    'datetime-local': '2024-05-31T14:30',
    month: '2024-05',
    week: '2024-W22',
    color: '#ff8800',
    number: '42',
    range: '50',
  };
  const re = formats[input.type];
  if (re && !re.test(text)) {
    ctx.fail(
      'bad_request',
      `Element ${ref} is a ${input.type} input: type the value as ${examples[input.type]}.`,
    );
  }
}

/**
 * Resolves in a later task. Real keystrokes are separate tasks, so a framework that batches its
 * state updates in a microtask (Preact, Vue, Svelte, Lit) re-renders between them; typing every
 * key in one task leaves an Enter handler reading the value from before the text was typed.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(0);
  });
}

async function typeIntoField(
  el: HTMLInputElement | HTMLTextAreaElement,
  text: string,
  clear: boolean,
  caretless: boolean,
): Promise<void> {
  const doc = el.ownerDocument;
  if (caretless && el.type === 'number' && text.length <= KEY_BY_KEY_LIMIT) {
    // A number field is typed into key by key like a text field (widgets such as calendar year
    // boxes act on keyup), though it has no caret for insertText: the value grows per key.
    let value = clear ? '' : el.value;
    let first = true;
    for (const ch of text) {
      if (!first) await nextTask();
      first = false;
      const key = keySpec(ch) ?? { key: ch, code: '', keyCode: 0, text: ch };
      if (
        dispatchKey(el, 'keydown', key, []) &&
        dispatchKey(el, 'keypress', key, []) &&
        beforeInput(el, 'insertText', ch)
      ) {
        value += ch;
        setNativeValue(el, value);
        fire(el, 'input', ch);
      }
      dispatchKey(el, 'keyup', key, []);
    }
    fire(el, 'change');
    return;
  }
  if (caretless) {
    setNativeValue(el, clear || !el.value ? text : el.value + text);
    fire(el, 'input', text);
    fire(el, 'change');
    return;
  }
  const before = el.value;
  if (clear) el.select();
  else {
    try {
      el.setSelectionRange(el.value.length, el.value.length);
    } catch {
      // email inputs have no selection API: text is appended by insertText anyway.
    }
  }
  let bypassed = false;
  if (clear && !text) {
    if (beforeInput(el, 'deleteContentBackward', null) && !doc.execCommand('delete')) {
      setNativeValue(el, '');
      fire(el, 'input');
      bypassed = true;
    }
  } else if (text.length <= KEY_BY_KEY_LIMIT) {
    let first = true;
    for (const ch of text) {
      if (!first) await nextTask();
      if (typeChar(el, ch, clear && first) === 'bypassed') bypassed = true;
      first = false;
    }
  } else if (beforeInput(el, 'insertText', text)) {
    bypassed = insert(el, text, clear) === 'bypassed';
  }
  // Text that went in through insertText is a user edit to Chromium: it sends `change` itself
  // on blur, and Enter sends one (enter.ts). A value set around it needs the event from here.
  if (bypassed && el.value !== before) {
    fire(el, 'change');
    noteCommitted(el);
  }
}

/** How a key's text went in: as a user edit, by setting the value, or not at all. */
type Inserted = 'edited' | 'bypassed' | 'none';

/**
 * One key: keydown, keypress, beforeinput, the insertion (input), keyup, as Chromium sends them
 * for a real key. A page that prevents keydown, keypress or beforeinput stops the text, as it
 * would stop a real key's.
 */
function typeChar(
  el: HTMLInputElement | HTMLTextAreaElement | HTMLElement,
  ch: string,
  replacing: boolean,
): Inserted {
  const spec = ch === '\n' ? keySpec('Enter') : keySpec(ch);
  const key = spec ?? { key: ch, code: '', keyCode: 0, text: ch };
  let inserted: Inserted = 'none';
  if (
    dispatchKey(el, 'keydown', key, []) &&
    dispatchKey(el, 'keypress', key, []) &&
    beforeInput(el, ch === '\n' ? 'insertLineBreak' : 'insertText', ch === '\n' ? null : ch)
  )
    inserted = insert(el, ch, replacing);
  dispatchKey(el, 'keyup', key, []);
  return inserted;
}

function insert(
  el: HTMLInputElement | HTMLTextAreaElement | HTMLElement,
  text: string,
  replacing: boolean,
): Inserted {
  const doc = el.ownerDocument;
  if (doc.activeElement !== el && !(el as HTMLElement).isContentEditable)
    (el as HTMLElement).focus({ preventScroll: true });
  if (doc.execCommand('insertText', false, text)) return 'edited';
  if ('value' in el && (el.localName === 'input' || el.localName === 'textarea')) {
    const field = el as HTMLInputElement | HTMLTextAreaElement;
    setNativeValue(field, replacing ? text : field.value + text);
    fire(field, 'input', text);
  } else {
    el.append(text);
    fire(el, 'input', text);
  }
  return 'bypassed';
}

async function typeIntoRich(el: HTMLElement, text: string, clear: boolean): Promise<void> {
  const doc = el.ownerDocument;
  const sel = doc.getSelection();
  if (sel) {
    const range = doc.createRange();
    range.selectNodeContents(el);
    if (!clear) range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }
  if (clear && !text) {
    if (beforeInput(el, 'deleteContentBackward', null)) doc.execCommand('delete');
    return;
  }
  if (text.length <= KEY_BY_KEY_LIMIT) {
    let first = true;
    for (const ch of text) {
      if (!first) await nextTask();
      typeChar(el, ch, false);
      first = false;
    }
  } else if (beforeInput(el, 'insertText', text)) {
    insert(el, text, false);
  }
}
