/**
 * One element as an acting tool reports it: its snapshot line (role, name, ref, state), its box
 * for the highlight, and the facts approval needs (file input, download, payment form submit).
 */
import type { ElementReport } from '../../src/protocol/page-messages';
import type { RefRegistry } from '../refs';
import { accessibleName } from './names';
import { controlLine } from './control-line';
import { roleOf } from './roles';
import { derivedNameOf } from './derived-name';
import { looksLikeCardNumber, stateOf } from './state';
import type { StyleCache } from './visibility';

const DOWNLOAD_EXT =
  /\.(zip|rar|7z|tar|gz|tgz|bz2|xz|exe|msi|dmg|pkg|deb|rpm|apk|iso|bin|jar|torrent)(\?|#|$)/i;

export function reportElement(
  el: Element,
  registry: RefRegistry,
  styles: StyleCache,
  refPrefix: string,
): ElementReport {
  const role = roleOf(el) ?? (el.localName === 'label' ? 'label' : 'clickable');
  const name = accessibleName(el, styles);
  const state = stateOf(el, role);
  const ref = registry.refFor(el);
  const line = controlLine(
    el,
    role,
    name,
    refPrefix + ref,
    state,
    undefined,
    derivedNameOf(el, role, name, styles),
  );
  const r = el.getBoundingClientRect();
  const report: ElementReport = {
    ref,
    tag: el.localName,
    role,
    name,
    line,
    box: { x: r.x, y: r.y, width: r.width, height: r.height },
  };
  if (state.value !== null) report.value = state.value;

  const link = el.closest('a[href], area[href]') as HTMLAnchorElement | null;
  if (link) {
    report.href = link.href;
    report.download =
      link.hasAttribute('download') || DOWNLOAD_EXT.test(new URL(link.href, link.baseURI).pathname);
    report.opensNewTab = link.target === '_blank';
  }
  if (el.localName === 'input' && (el as HTMLInputElement).type === 'file')
    report.isFileInput = true;

  const submit = submittedForm(el);
  if (submit) {
    const form = submit.form;
    report.submitsForm = submit.by;
    report.submitsPaymentForm = hasPaymentFields(form);
    report.formAction = submissionUrl(form, submit.by === 'click' ? el : defaultButton(form));
  }
  return report;
}

/** The form this element would submit, and how: clicking it, or pressing Enter in it. */
export function submittedForm(
  el: Element,
): { form: HTMLFormElement; by: 'click' | 'enter' } | null {
  const of = (form: HTMLFormElement | null, by: 'click' | 'enter') => (form ? { form, by } : null);
  if (el.localName === 'button') {
    const b = el as HTMLButtonElement;
    return b.type === 'submit' ? of(b.form, 'click') : null;
  }
  if (el.localName === 'input') {
    const i = el as HTMLInputElement;
    if (i.type === 'submit' || i.type === 'image') return of(i.form, 'click');
    // Implicit submission: Enter in a text field submits its form.
    if (
      !['checkbox', 'radio', 'file', 'button', 'reset', 'hidden', 'range', 'color'].includes(i.type)
    )
      return of(i.form, 'enter');
  }
  return null;
}

/** The form's default button: the one implicit submission (Enter in a field) goes through. */
function defaultButton(form: HTMLFormElement): Element | null {
  for (const c of Array.from(form.elements)) {
    const type = (c as HTMLButtonElement | HTMLInputElement).type;
    if (
      (c.localName === 'button' || c.localName === 'input') &&
      (type === 'submit' || type === 'image')
    )
      return c;
  }
  return null;
}

/** Where a submission goes: the submitter's `formaction` overrides the form's `action`. */
function submissionUrl(form: HTMLFormElement, submitter: Element | null): string {
  if (submitter?.hasAttribute('formaction'))
    return (submitter as HTMLButtonElement | HTMLInputElement).formAction;
  return form.action;
}

/** Card-number, CVC or expiry fields: submitting this form may spend money. */
export function hasPaymentFields(form: HTMLFormElement): boolean {
  for (const control of Array.from(form.elements)) {
    if (control.localName !== 'input') continue;
    const input = control as HTMLInputElement;
    const ac = (input.getAttribute('autocomplete') ?? '').toLowerCase();
    if (/\bcc-(number|csc|exp)/.test(ac)) return true;
    if (looksLikeCardNumber(input)) return true;
    const hint =
      `${input.name} ${input.id} ${input.getAttribute('aria-label') ?? ''} ${input.placeholder}`.toLowerCase();
    if (/\b(cvc|cvv|csc|security.?code)\b/.test(hint)) return true;
  }
  return false;
}
