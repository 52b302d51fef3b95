/**
 * A key press with synthetic events. Pages see the keydown/keypress/keyup; browsers do not run
 * default actions for synthetic keys, so the common ones are done here when the page does not
 * prevent them (Enter submits or activates, Space toggles, Tab moves focus, arrows scroll,
 * Backspace deletes, printable keys insert). Everything else needs browser_keyboard (trusted).
 */
import type { AgentContext } from '../agent-context';
import type { ActionAck } from '../../src/protocol/page-messages';
import { describeElement } from './describe';
import { beforeInput, dispatchKey, keySpec, type Modifier } from './events';
import { bringIntoView, type Deferred } from './pointer';
import { pressEnterToSubmit } from './enter';
import { deepActive } from './risk';

export function pressKey(
  ctx: AgentContext,
  key: string,
  modifiers: Modifier[],
  ref: string | undefined,
  docId: string | undefined,
): Deferred<ActionAck> {
  const spec = keySpec(key);
  if (!spec) {
    ctx.fail(
      'bad_request',
      `Unknown key "${key}". Use a key name such as Enter, Escape, Tab, ArrowDown, PageDown, Backspace, or a single character.`,
    );
  }
  const el = ref !== undefined ? ctx.resolve(ref, docId) : null;
  if (el) bringIntoView(el);
  // Without a ref the key goes where a real one would: the focused element itself, inside shadow
  // roots and same-origin frames (document.activeElement is only the outermost host or iframe),
  // which is also what the approval described (risk.ts).
  const target = (): HTMLElement => {
    if (el) return el as HTMLElement;
    const active = deepActive(ctx, ctx.doc).el as HTMLElement | null;
    return active ?? ctx.doc.body;
  };
  const shown = target();
  const result: ActionAck = {
    docId: ctx.registry.docId,
    url: ctx.env.win.location.href,
    element: el ? ctx.report(el) : undefined,
    note: `${[...modifiers, spec.key === ' ' ? 'Space' : spec.key].join('+')} on ${describeElement(shown)}`,
  };
  return {
    result,
    run: () => {
      const t = target();
      if (el && ctx.doc.activeElement !== el) (el as HTMLElement).focus?.({ preventScroll: true });
      const plain = modifiers.length === 0 || (modifiers.length === 1 && modifiers[0] === 'Shift');
      if (spec.key === 'Enter' && plain && isTextField(t)) {
        pressEnterToSubmit(t);
        return;
      }
      // A prevented keydown or keypress stops the key's default action, as with a real key.
      let allowed = dispatchKey(t, 'keydown', spec, modifiers);
      if (allowed && spec.text && plain) allowed = dispatchKey(t, 'keypress', spec, modifiers);
      if (allowed) defaultAction(ctx, t, spec.key, modifiers, plain);
      dispatchKey(t, 'keyup', spec, modifiers);
    },
  };
}

function isTextField(el: HTMLElement): boolean {
  if (el.localName === 'input')
    return ![
      'checkbox',
      'radio',
      'button',
      'submit',
      'reset',
      'file',
      'image',
      'range',
      'color',
    ].includes((el as HTMLInputElement).type);
  return false;
}

function isEditable(el: HTMLElement): boolean {
  return el.localName === 'textarea' || isTextField(el) || el.isContentEditable;
}

function defaultAction(
  ctx: AgentContext,
  el: HTMLElement,
  key: string,
  mods: Modifier[],
  plain: boolean,
): void {
  const doc = el.ownerDocument;
  const win = doc.defaultView ?? window;
  if (mods.includes('Control') || mods.includes('Meta')) {
    if (key.toLowerCase() === 'a' && isEditable(el)) doc.execCommand('selectAll');
    return;
  }
  if (isEditable(el)) {
    // Each edit is announced by the cancelable beforeinput a real key sends (execCommand does not).
    const edit = (command: string, inputType: string, data: string | null = null) => {
      if (beforeInput(el, inputType, data)) doc.execCommand(command, false, data ?? undefined);
    };
    const text = mods.includes('Shift') ? key.toUpperCase() : key;
    if (key === 'Backspace') edit('delete', 'deleteContentBackward');
    else if (key === 'Delete') edit('forwardDelete', 'deleteContentForward');
    else if (key === 'Enter')
      edit(
        el.isContentEditable ? 'insertParagraph' : 'insertLineBreak',
        el.isContentEditable ? 'insertParagraph' : 'insertLineBreak',
      );
    else if (key.length === 1 && plain) edit('insertText', 'insertText', text);
    else if (key === 'Tab') moveFocus(ctx, el, mods.includes('Shift'));
    return;
  }
  const activatable =
    el.localName === 'button' ||
    el.localName === 'summary' ||
    el.getAttribute('role') === 'button' ||
    (el.localName === 'input' &&
      ['checkbox', 'radio', 'button', 'submit', 'reset'].includes((el as HTMLInputElement).type));
  switch (key) {
    case 'Enter':
      if (activatable || el.localName === 'a') el.click();
      return;
    case ' ':
      if (activatable) el.click();
      else
        win.scrollBy({
          top: win.innerHeight * 0.85 * (mods.includes('Shift') ? -1 : 1),
          behavior: 'instant',
        });
      return;
    case 'Tab':
      moveFocus(ctx, el, mods.includes('Shift'));
      return;
    case 'ArrowDown':
      win.scrollBy({ top: 40, behavior: 'instant' });
      return;
    case 'ArrowUp':
      win.scrollBy({ top: -40, behavior: 'instant' });
      return;
    case 'PageDown':
      win.scrollBy({ top: win.innerHeight * 0.85, behavior: 'instant' });
      return;
    case 'PageUp':
      win.scrollBy({ top: -win.innerHeight * 0.85, behavior: 'instant' });
      return;
    case 'Home':
      win.scrollTo({ top: 0, behavior: 'instant' });
      return;
    case 'End':
      win.scrollTo({ top: doc.documentElement.scrollHeight, behavior: 'instant' });
      return;
  }
}

const FOCUSABLE =
  'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,iframe,[tabindex],[contenteditable]:not([contenteditable=false])';

/** Sequential focus navigation, approximately: tabindex order, then document order. */
function moveFocus(ctx: AgentContext, from: HTMLElement, backwards: boolean): void {
  const all = Array.from(ctx.doc.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) =>
      el.tabIndex >= 0 &&
      !(el as HTMLButtonElement).disabled &&
      el.checkVisibility({ visibilityProperty: true }),
  );
  const positive = all.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
  const order = [...positive, ...all.filter((el) => el.tabIndex === 0)];
  if (!order.length) return;
  const i = order.indexOf(from);
  const next =
    i < 0
      ? order[backwards ? order.length - 1 : 0]
      : order[(i + (backwards ? -1 : 1) + order.length) % order.length];
  next.focus();
}
