/**
 * The final check of a replay: the last page shows what the recorded turn ended on. The texts are
 * page text from the structured outline (derive.ts), with the task's values as `{{input}}`.
 *
 * A check text matches a page line when the line contains it with this run's input values filled
 * in, except that numbers the page wrote itself (a price, a subtotal, "2 items") may be any
 * number: they follow from the inputs and the shop's prices, and a run with other inputs (or a
 * price change) still ends on the same cart. The values the user gave must appear as given.
 */
import { normalizeText, type Outline } from './outline';
import type { WorkflowCheck } from './types';
import { matchesUrlPattern } from './url-pattern';

export type CheckResult = { kind: 'passed' } | { kind: 'failed'; message: string };

const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g;
const NUMBER = /\d+(?:[.,]\d+)*/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The literal part of a check text: its own numbers match any number. */
function literal(s: string): string {
  let out = '';
  let at = 0;
  for (const m of s.matchAll(NUMBER)) {
    out += `${escapeRegExp(s.slice(at, m.index))}\\d+(?:[.,]\\d+)*`;
    at = m.index + m[0].length;
  }
  return out + escapeRegExp(s.slice(at));
}

/** The check text as a pattern over a normalized page line, or the name of a missing input. */
export function checkPattern(
  text: string,
  values: Readonly<Record<string, string>>,
): { kind: 'ok'; pattern: RegExp; shown: string } | { kind: 'missing'; name: string } {
  const t = normalizeText(text);
  let source = '';
  let shown = '';
  let at = 0;
  for (const m of t.matchAll(PLACEHOLDER)) {
    const value = values[m[1]];
    if (value === undefined) return { kind: 'missing', name: m[1] };
    const v = normalizeText(value);
    source += literal(t.slice(at, m.index)) + escapeRegExp(v);
    shown += t.slice(at, m.index) + v;
    at = m.index + m[0].length;
  }
  source += literal(t.slice(at));
  shown += t.slice(at);
  return { kind: 'ok', pattern: new RegExp(source, 'u'), shown };
}

export function checkFinalPage(
  check: WorkflowCheck,
  outline: Outline,
  values: Readonly<Record<string, string>>,
  url?: string,
): CheckResult {
  const pageUrl = url ?? outline.url;
  if (check.urlPattern && pageUrl && !matchesUrlPattern(check.urlPattern, pageUrl)) {
    return {
      kind: 'failed',
      message: `The last page is ${pageUrl}; the workflow ends on ${check.urlPattern}.`,
    };
  }
  const lines = [...outline.texts, ...outline.controls.map((c) => c.name)].map(normalizeText);
  for (const t of check.texts) {
    const p = checkPattern(t, values);
    if (p.kind === 'missing')
      return {
        kind: 'failed',
        message: `The check needs the input "${p.name}", which has no value.`,
      };
    if (!lines.some((l) => p.pattern.test(l)))
      return { kind: 'failed', message: `The last page does not show "${p.shown}".` };
  }
  return { kind: 'passed' };
}
