/**
 * Enter in a text field, as Chromium handles a real one: keydown, keypress, and when neither was
 * prevented the keypress's default action — a beforeinput `insertLineBreak` (a single-line field
 * then inserts nothing), a `change` event if the value changed since the field's last one, then
 * implicit submission through the form's default button (its click
 * listeners run), or requestSubmit() when the form has none — then keyup.
 *
 * Chromium fires that `change` itself only for trusted keys, and fires one on blur for a value
 * the user edited (insertText counts as such an edit) whatever script does; so typing sends no
 * `change` of its own and Enter sends the one a real Enter would.
 */
import { beforeInput, dispatchKey, keySpec } from './events';

/** A text field's value as of its last `change` (or when typing into it began). */
const committed = new WeakMap<Element, string>();

/** Typing into `el` begins: remember its value unless an edit since its last change is open. */
export function noteEditStart(
  el: HTMLInputElement | HTMLTextAreaElement,
  wasFocused: boolean,
): void {
  if (!wasFocused || !committed.has(el)) committed.set(el, el.value);
}

/** A change was sent for the field's current value (typing that had to bypass insertText). */
export function noteCommitted(el: HTMLInputElement | HTMLTextAreaElement): void {
  committed.set(el, el.value);
}

/** The `change` a real Enter sends from an input whose value changed (never a textarea). */
function commitOnEnter(el: HTMLElement): void {
  if (el.localName !== 'input') return;
  const input = el as HTMLInputElement;
  const before = committed.get(input);
  if (before === undefined || before === input.value) return;
  committed.set(input, input.value);
  const view = (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
  input.dispatchEvent(new view.Event('change', { bubbles: true }));
}

export function pressEnterToSubmit(el: HTMLElement): string {
  const spec = keySpec('Enter');
  if (!spec) return '';
  const allowed = dispatchKey(el, 'keydown', spec, []) && dispatchKey(el, 'keypress', spec, []);
  let outcome = 'Enter pressed';
  if (allowed) {
    // Chromium announces Enter in a single-line field as a line break it then does not insert.
    if (el.localName === 'input') beforeInput(el, 'insertLineBreak', null);
    commitOnEnter(el);
    const form = (el as HTMLInputElement).form ?? el.closest('form');
    if (form && el.isConnected) {
      const submitter = Array.from(form.elements).find(
        (c) =>
          (c.localName === 'button' && (c as HTMLButtonElement).type === 'submit') ||
          (c.localName === 'input' && ['submit', 'image'].includes((c as HTMLInputElement).type)),
      ) as HTMLElement | undefined;
      if (submitter && !(submitter as HTMLButtonElement).disabled) {
        // What a browser does: a synthetic click on the default button (no focus change).
        submitter.click();
        outcome = 'form submitted with its submit button';
      } else if (!submitter) {
        form.requestSubmit();
        outcome = 'form submitted';
      }
    }
  }
  dispatchKey(el, 'keyup', spec, []);
  return outcome;
}
