/**
 * One form field as real pages write it, varied by a seeded Writer: how it is labelled (`for`,
 * a wrapping label, aria-labelledby, aria-label, a placeholder only), required markers, help and
 * error text, framework wrapper divs, prefilled and disabled values, and every control kind forms
 * use (native inputs of each type, selects up to a country list, radio and checkbox groups,
 * ARIA comboboxes, switches and listboxes, contenteditable). Used by form-pages.ts.
 */
import type { Writer } from './snapshot-pages';

export type FieldKind =
  | 'text'
  | 'email'
  | 'tel'
  | 'password'
  | 'url'
  | 'number'
  | 'date'
  | 'time'
  | 'datetime-local'
  | 'month'
  | 'range'
  | 'color'
  | 'file'
  | 'search'
  | 'textarea'
  | 'select'
  | 'country'
  | 'multiselect'
  | 'radios'
  | 'checkboxes'
  | 'checkbox'
  | 'switch'
  | 'combobox'
  | 'listbox'
  | 'editable';

export interface FieldSpec {
  label: string;
  kind: FieldKind;
  /** Choices of selects, groups, comboboxes and listboxes. */
  options?: readonly string[];
  /** A sample value to prefill with. */
  sample?: string;
}

/** Made-up words for labels a vocabulary does not cover, and texts for help and errors. */
export interface FieldTexts {
  help: (label: string) => string;
  error: (label: string) => string;
  required: string;
  choose: string;
}

const INPUT_KINDS = new Set<FieldKind>([
  'text',
  'email',
  'tel',
  'password',
  'url',
  'number',
  'date',
  'time',
  'datetime-local',
  'month',
  'range',
  'color',
  'file',
  'search',
]);
const PLACEHOLDER_OK = new Set<FieldKind>(['text', 'email', 'tel', 'password', 'url', 'search']);

/** Framework-ish class names: wrapper divs real pages put around every field. */
const WRAPPERS = [
  'MuiFormControl-root MuiTextField-root',
  'ant-form-item',
  'ant-form-item-control-input',
  'form-group',
  'field',
  'chakra-form-control',
  'sc-bdVaJa kQwmFv',
  'css-1q2w3e4',
  'flex flex-col gap-1',
  'v-input__control',
];

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export class FieldWriter {
  private n = 0;
  constructor(
    private readonly w: Writer,
    private readonly texts: FieldTexts,
    private readonly prefix: string,
  ) {}

  private id(): string {
    return `${this.prefix}${++this.n}`;
  }

  private chance(p: number): boolean {
    return this.w.int(0, 999) < p * 1000;
  }

  /** 0–3 framework wrapper divs around `inner`. */
  wrap(inner: string): string {
    let out = inner;
    for (let i = this.w.int(0, 3); i > 0; i--)
      out = `<div class="${this.w.pick(WRAPPERS)}">${out}</div>`;
    return out;
  }

  private requiredMark(): string {
    return this.w.pick([
      '<span class="required" aria-hidden="true">*</span>',
      ` <span class="req">(${this.texts.required})</span>`,
      '<abbr title="required">*</abbr>',
      '<span class="text-red-500">*</span>',
    ]);
  }

  field(spec: FieldSpec): string {
    if (spec.kind === 'radios' || spec.kind === 'checkboxes') return this.group(spec);
    if (spec.kind === 'checkbox') return this.checkbox(spec);
    if (spec.kind === 'switch') return this.switchField(spec);
    if (spec.kind === 'listbox') return this.listbox(spec);
    return this.labelled(spec);
  }

  /** A control with one label, help, error: inputs, textareas, selects, comboboxes, editables. */
  private labelled(spec: FieldSpec): string {
    const id = this.id();
    const required = this.chance(0.35);
    const disabled = !required && this.chance(0.06);
    const help = this.chance(0.3) ? this.texts.help(spec.label) : '';
    const error = !disabled && this.chance(0.12) ? this.texts.error(spec.label) : '';
    const prefill = !error && this.chance(0.3);
    const styles = ['for', 'for', 'wrap', 'labelledby', 'aria-label'];
    if (PLACEHOLDER_OK.has(spec.kind)) styles.push('placeholder');
    const style = this.w.pick(styles);
    const described = [help ? `${id}-help` : '', error ? `${id}-err` : ''].filter(Boolean);
    const a: string[] = [];
    if (style === 'for' || style === 'wrap') a.push(`id="${id}"`);
    if (style === 'labelledby') a.push(`aria-labelledby="${id}-label"`);
    if (style === 'aria-label') a.push(`aria-label="${attr(spec.label)}"`);
    if (style === 'placeholder') a.push(`placeholder="${attr(spec.label)}"`);
    else if (PLACEHOLDER_OK.has(spec.kind) && this.chance(0.3))
      a.push(`placeholder="${attr(spec.sample ?? this.w.words(1, 2))}"`);
    if (described.length) a.push(`aria-describedby="${described.join(' ')}"`);
    if (required) a.push(this.w.pick(['required', 'aria-required="true"']));
    if (disabled) a.push('disabled');
    if (error) a.push('aria-invalid="true"');
    a.push(`name="${id}"`);
    const control = this.control(spec, a.join(' '), prefill, disabled);
    const mark =
      required && style !== 'placeholder' && style !== 'aria-label' ? this.requiredMark() : '';
    const labelTag = this.w.pick(['label', 'label', 'span', 'div']);
    let head = '';
    let body: string;
    if (style === 'for') {
      head = `<label for="${id}" class="form-label">${spec.label}${mark}</label>`;
      body = control;
    } else if (style === 'wrap') {
      body = `<label class="form-label"><span>${spec.label}${mark}</span>${this.wrap(control)}</label>`;
    } else if (style === 'labelledby') {
      head = `<${labelTag} id="${id}-label" class="label">${spec.label}${mark}</${labelTag}>`;
      body = control;
    } else {
      body = control;
    }
    const tail = [
      help ? `<div id="${id}-help" class="form-text help">${help}</div>` : '',
      error ? `<div id="${id}-err" class="invalid-feedback error" role="alert">${error}</div>` : '',
    ].join('');
    return this.wrap(`${head}${style === 'wrap' ? body : this.wrap(body)}${tail}`);
  }

  private control(spec: FieldSpec, a: string, prefill: boolean, disabled: boolean): string {
    const sample = spec.sample ?? this.w.words(1, 3);
    const value = prefill ? ` value="${attr(sample)}"` : '';
    if (INPUT_KINDS.has(spec.kind)) {
      const v = spec.kind === 'file' || spec.kind === 'password' ? '' : value;
      const range = spec.kind === 'range' ? ' min="0" max="100" step="5"' : '';
      return `<input type="${spec.kind}" class="form-control"${range} ${a}${v}>`;
    }
    if (spec.kind === 'textarea')
      return `<textarea class="form-control" rows="${this.w.int(2, 6)}" ${a}>${prefill ? sample : ''}</textarea>`;
    if (spec.kind === 'select' || spec.kind === 'country' || spec.kind === 'multiselect') {
      const options = spec.options ?? [];
      const chosen = prefill ? this.w.int(0, options.length - 1) : -1;
      const placeholder =
        spec.kind !== 'multiselect' && this.chance(0.6)
          ? `<option value=""${chosen < 0 ? ' selected' : ''}>${this.texts.choose}</option>`
          : '';
      const list = options
        .map((o, i) => `<option value="${i}"${i === chosen ? ' selected' : ''}>${o}</option>`)
        .join('');
      const grouped =
        spec.kind !== 'multiselect' && options.length > 6 && this.chance(0.35)
          ? `<optgroup label="${this.w.word()}">${list}</optgroup>`
          : list;
      const multi =
        spec.kind === 'multiselect' ? ` multiple size="${Math.min(6, options.length)}"` : '';
      return `<select class="form-select"${multi} ${a}>${placeholder}${grouped}</select>`;
    }
    if (spec.kind === 'combobox') {
      const lb = `${this.prefix}lb${this.n}`;
      const options = (spec.options ?? [])
        .map((o) => `<li role="option" id="${lb}-${attr(o)}">${o}</li>`)
        .join('');
      const input = this.chance(0.6)
        ? `<input role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${lb}" ${a}${value}>`
        : `<div role="combobox" tabindex="${disabled ? -1 : 0}" aria-haspopup="listbox" aria-expanded="false" aria-controls="${lb}" ${a}>${prefill ? sample : this.texts.choose}</div>`;
      return `<div class="combobox">${input}<ul role="listbox" id="${lb}" hidden>${options}</ul></div>`;
    }
    // contenteditable: a rich-text field.
    return `<div class="editor" contenteditable="${disabled ? 'false' : 'true'}" role="textbox" aria-multiline="true" ${a}>${prefill ? `<p>${sample}</p>` : ''}</div>`;
  }

  /** A radio or checkbox group: fieldset and legend, an ARIA group, or a plain caption. */
  private group(spec: FieldSpec): string {
    const id = this.id();
    const type = spec.kind === 'radios' ? 'radio' : 'checkbox';
    const options = spec.options ?? [];
    const checked = this.w.int(-1, options.length - 1);
    const required = type === 'radio' && this.chance(0.3);
    const inline = this.chance(0.5);
    const items = options
      .map((o, i) => {
        const oid = `${id}-${i}`;
        const a = `type="${type}" name="${id}" value="${i}"${i === checked ? ' checked' : ''}${required && i === 0 ? ' required' : ''}`;
        return this.w.pick([
          `<div class="form-check${inline ? ' form-check-inline' : ''}"><input class="form-check-input" id="${oid}" ${a}><label class="form-check-label" for="${oid}">${o}</label></div>`,
          `<label class="option"><input ${a}> ${o}</label>`,
          `<label class="option"><input ${a}><span>${o}</span></label>`,
        ]);
      })
      .join(inline ? ' ' : '\n');
    const mark = required ? this.requiredMark() : '';
    const help = this.chance(0.25) ? `<p class="help">${this.texts.help(spec.label)}</p>` : '';
    switch (this.w.int(0, 2)) {
      case 0:
        return `<fieldset class="group"><legend>${spec.label}${mark}</legend>${help}${items}</fieldset>`;
      case 1: {
        const role = type === 'radio' ? 'radiogroup' : 'group';
        return this.wrap(
          `<div class="label" id="${id}-label">${spec.label}${mark}</div>${help}<div role="${role}" aria-labelledby="${id}-label">${items}</div>`,
        );
      }
      default:
        return this.wrap(`<p class="label">${spec.label}${mark}</p>${help}<div>${items}</div>`);
    }
  }

  private checkbox(spec: FieldSpec): string {
    const id = this.id();
    const checked = this.chance(0.3) ? ' checked' : '';
    const required = this.chance(0.4) ? ' required' : '';
    return this.wrap(
      this.w.pick([
        `<input type="checkbox" id="${id}" name="${id}"${checked}${required}> <label for="${id}">${spec.label}</label>`,
        `<label><input type="checkbox" name="${id}"${checked}${required}> ${spec.label}</label>`,
      ]),
    );
  }

  private switchField(spec: FieldSpec): string {
    const id = this.id();
    const on = this.chance(0.5);
    const help = this.chance(0.4) ? this.texts.help(spec.label) : '';
    const described = help ? ` aria-describedby="${id}-help"` : '';
    const helpLine = help ? `<div id="${id}-help" class="help">${help}</div>` : '';
    return this.wrap(
      this.w.pick([
        `<div class="row"><span id="${id}-label">${spec.label}</span><button type="button" role="switch" aria-checked="${on}" aria-labelledby="${id}-label"${described} class="switch"><span class="thumb"></span></button></div>${helpLine}`,
        `<label class="switch-row"><input type="checkbox" role="switch" name="${id}"${on ? ' checked' : ''}${described}> ${spec.label}</label>${helpLine}`,
      ]),
    );
  }

  private listbox(spec: FieldSpec): string {
    const id = this.id();
    const options = spec.options ?? [];
    const chosen = this.w.int(0, options.length - 1);
    const items = options
      .map(
        (o, i) =>
          `<li role="option" id="${id}-${i}" aria-selected="${i === chosen}" class="item">${o}</li>`,
      )
      .join('');
    return this.wrap(
      `<div id="${id}-label" class="label">${spec.label}</div><ul role="listbox" tabindex="0" aria-labelledby="${id}-label" aria-activedescendant="${id}-${chosen}" class="list">${items}</ul>`,
    );
  }
}
