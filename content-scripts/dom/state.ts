/**
 * Element states and current values as the model needs them to decide its next action. Secrets
 * typed by the user (passwords, card numbers) are masked: page values go to a remote model.
 */
import { clip, normalizeSpace } from './text';

export interface ElementState {
  /** Bracketed flags in snapshot order: `checked`, `disabled`, `expanded=false`… */
  flags: string[];
  /** Current value shown after a colon, already masked and clipped; null when there is none. */
  value: string | null;
}

const MAX_VALUE_CHARS = 80;
const MAX_OPTIONS = 12;

export function stateOf(el: Element, role: string): ElementState {
  const flags: string[] = [];
  const aria = (name: string) => el.getAttribute(name);

  const checked = checkedState(el, role);
  if (checked === 'true') flags.push('checked');
  else if (checked === 'mixed') flags.push('mixed');

  if (isDisabled(el)) flags.push('disabled');

  const expanded = aria('aria-expanded');
  if (expanded === 'true') flags.push('expanded');
  else if (expanded === 'false') flags.push('collapsed');
  else if (role === 'button' && el.localName === 'summary') {
    flags.push((el.parentElement as HTMLDetailsElement).open ? 'expanded' : 'collapsed');
  }

  if (
    aria('aria-selected') === 'true' ||
    (el.localName === 'option' && (el as HTMLOptionElement).selected)
  ) {
    flags.push('selected');
  }
  const pressed = aria('aria-pressed');
  if (pressed === 'true') flags.push('pressed');
  else if (pressed === 'mixed') flags.push('pressed=mixed');

  const current = aria('aria-current');
  if (current && current !== 'false')
    flags.push(current === 'true' ? 'current' : `current=${current}`);

  if ((el as HTMLInputElement).required || aria('aria-required') === 'true') flags.push('required');
  if ((el as HTMLInputElement).readOnly || aria('aria-readonly') === 'true') {
    if (
      role === 'textbox' ||
      role === 'searchbox' ||
      role === 'combobox' ||
      role === 'spinbutton'
    ) {
      flags.push('readonly');
    }
  }
  if (aria('aria-invalid') === 'true') flags.push('invalid');
  if (
    el.hasAttribute('aria-haspopup') &&
    aria('aria-haspopup') !== 'false' &&
    role !== 'combobox'
  ) {
    flags.push('haspopup');
  }

  return { flags, value: valueOf(el, role) };
}

function checkedState(el: Element, role: string): 'true' | 'false' | 'mixed' | null {
  if (el.localName === 'input') {
    const input = el as HTMLInputElement;
    if (input.type === 'checkbox' || input.type === 'radio') {
      if (input.indeterminate) return 'mixed';
      return input.checked ? 'true' : 'false';
    }
  }
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role.startsWith('menuitem')) {
    const v = el.getAttribute('aria-checked');
    if (v === 'true' || v === 'mixed' || v === 'false') return v;
  }
  return null;
}

export function isDisabled(el: Element): boolean {
  if (el.getAttribute('aria-disabled') === 'true') return true;
  try {
    return el.matches(':disabled');
  } catch {
    return false;
  }
}

function valueOf(el: Element, role: string): string | null {
  switch (el.localName) {
    case 'input': {
      const input = el as HTMLInputElement;
      switch (input.type) {
        case 'checkbox':
        case 'radio':
        case 'button':
        case 'submit':
        case 'reset':
        case 'image':
          return null;
        case 'file': {
          const names = Array.from(input.files ?? []).map((f) => f.name);
          return names.length ? clip(names.join(', '), MAX_VALUE_CHARS) : null;
        }
        case 'password':
          return input.value ? '•'.repeat(Math.min(input.value.length, 8)) : null;
        default:
          if (!input.value) return null;
          if (looksLikeCardNumber(input)) return `•••• ${input.value.replace(/\D/g, '').slice(-4)}`;
          if (isSecretAutocomplete(input)) return '•••';
          return clip(normalizeSpace(input.value), MAX_VALUE_CHARS);
      }
    }
    case 'textarea': {
      const v = (el as HTMLTextAreaElement).value;
      return v ? clip(normalizeSpace(v), MAX_VALUE_CHARS) : null;
    }
    case 'select':
      return selectValue(el as HTMLSelectElement);
    default:
      if (role === 'textbox' || role === 'searchbox') {
        const text = normalizeSpace((el as HTMLElement).innerText ?? el.textContent ?? '');
        return text ? clip(text, MAX_VALUE_CHARS) : null;
      }
      if (role === 'slider' || role === 'spinbutton' || role === 'combobox') {
        const v = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
        return v ? clip(normalizeSpace(v), MAX_VALUE_CHARS) : null;
      }
      return null;
  }
}

/**
 * `Selected [options: A, B, C]` so the model can pick without opening the list; a long list
 * (a country picker's 249) is only counted, `Canada [249 options]`: browser_select takes an
 * option's label without the list, and browser_find finds the select by an option's label.
 * Listing the first dozen of such a list cost 40–50 tokens a field and named none the model was
 * more likely to need (issue 26, point 3).
 */
function selectValue(select: HTMLSelectElement): string {
  const label = (o: HTMLOptionElement) => normalizeSpace(o.label || o.text);
  const selected = Array.from(select.selectedOptions, label);
  const all = Array.from(select.options, label);
  const current = selected.length ? clip(selected.join(', '), MAX_VALUE_CHARS) : '(none)';
  return `${current} ${optionsSummary(all)}`;
}

/** `[options: A, B, C]` up to MAX_OPTIONS labels, else `[N options]`. */
export function optionsSummary(labels: readonly string[]): string {
  if (labels.length > MAX_OPTIONS) return `[${labels.length} options]`;
  return `[options: ${labels.map((o) => clip(o, 40)).join(', ')}]`;
}

export function isSecretAutocomplete(input: HTMLInputElement): boolean {
  const ac = (input.getAttribute('autocomplete') ?? '').toLowerCase();
  return /cc-csc|cc-number|one-time-code|current-password|new-password/.test(ac);
}

export function looksLikeCardNumber(input: HTMLInputElement): boolean {
  const ac = (input.getAttribute('autocomplete') ?? '').toLowerCase();
  if (ac.includes('cc-number')) return true;
  const hint = `${input.name} ${input.id}`.toLowerCase();
  return /card.?num|cc.?num|cardnumber/.test(hint);
}
