/**
 * Values the user gave in the task become named inputs: a step parameter whose value appears in
 * the task text (as whole words) is replaced by `{{name}}`, and the run fills it back in.
 */
import type { WorkflowInput } from './types';

const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g;
/** Parameters that never carry the user's words. */
const STRUCTURAL = new Set([
  'ref',
  'tabId',
  'frameId',
  'url',
  'button',
  'mode',
  'direction',
  'action',
]);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The value occurs in the task as whole words (so "3" does not match "13"). */
export function occursInTask(task: string, value: string): boolean {
  const v = value.trim();
  if (!v || v.length > 200) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(v)}($|[^\\p{L}\\p{N}])`, 'iu').test(task);
}

/** `Search products` → `search_products`; falls back to `input`. */
export function inputName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^[0-9_]+/, '')
    .slice(0, 32);
  return slug || 'input';
}

/** Collects inputs while steps are derived: one input per distinct value. */
export class InputCollector {
  readonly inputs: WorkflowInput[] = [];
  private readonly byValue = new Map<string, string>();

  constructor(private readonly task: string) {}

  /** The params with task values replaced by placeholders. */
  template(params: Record<string, unknown>, label: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) {
      if (STRUCTURAL.has(k)) out[k] = v;
      else if (typeof v === 'string') out[k] = this.value(v, label || k);
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string'))
        out[k] = v.map((x) => this.value(x, label || k));
      else out[k] = v;
    }
    return out;
  }

  /**
   * A value the user typed while recording (recorded.ts): always an input, named for its field,
   * with the value as its default. Returns the placeholder text.
   */
  typed(v: string, label: string): string {
    return v.trim() ? this.value(v, label, true) : v;
  }

  /** A secret field typed while recording: an input with no default the run must be given. */
  secret(label: string): string {
    const base = inputName(label || 'password');
    let name = base;
    for (let i = 2; this.inputs.some((x) => x.name === name); i++) name = `${base}_${i}`;
    this.inputs.push({ name, secret: true });
    return `{{${name}}}`;
  }

  private value(v: string, label: string, always = false): string {
    if (!always && !occursInTask(this.task, v)) return v;
    const key = v.trim().toLowerCase();
    let name = this.byValue.get(key);
    if (!name) {
      const base = inputName(label);
      name = base;
      for (let i = 2; this.inputs.some((x) => x.name === name); i++) name = `${base}_${i}`;
      this.byValue.set(key, name);
      this.inputs.push({ name, default: v.trim() });
    }
    return v.replace(v.trim(), `{{${name}}}`);
  }

  /** Replace recorded values inside a text (for the final check). */
  templateText(text: string): string {
    let t = text;
    for (const [value, name] of this.byValue) {
      t = t.replace(
        new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(value)}(?=$|[^\\p{L}\\p{N}])`, 'giu'),
        (_m, pre: string) => `${pre}{{${name}}}`,
      );
    }
    return t;
  }

  /** The text mentions a recorded input value. */
  mentionsInput(text: string): boolean {
    return [...this.byValue.keys()].some((v) => occursInTask(text, v));
  }
}

export type Filled = { kind: 'ok'; value: unknown } | { kind: 'missing'; name: string };

/** Fill placeholders in a step's params (deeply for arrays); an unknown input is an error. */
export function fillInputs(value: unknown, values: Readonly<Record<string, string>>): Filled {
  if (typeof value === 'string') {
    let missing: string | undefined;
    const s = value.replace(PLACEHOLDER, (_m, n: string) => {
      if (!(n in values)) missing ??= n;
      return values[n] ?? '';
    });
    return missing ? { kind: 'missing', name: missing } : { kind: 'ok', value: s };
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const f = fillInputs(v, values);
      if (f.kind === 'missing') return f;
      out.push(f.value);
    }
    return { kind: 'ok', value: out };
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const f = fillInputs(v, values);
      if (f.kind === 'missing') return f;
      out[k] = f.value;
    }
    return { kind: 'ok', value: out };
  }
  return { kind: 'ok', value };
}

/** The values of a run: the workflow's defaults, overridden by what the user gave. */
export function inputValues(
  inputs: readonly WorkflowInput[],
  given: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of inputs) {
    const v = given[i.name] ?? i.default;
    if (v !== undefined) out[i.name] = v;
  }
  return out;
}
