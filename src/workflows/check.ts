/** The final check of a replay: the last page shows what the recorded turn ended on. */
import { normalizeText, type Outline } from './outline';
import type { WorkflowCheck } from './types';
import { fillInputs } from './inputs';
import { matchesUrlPattern } from './url-pattern';

export type CheckResult = { kind: 'passed' } | { kind: 'failed'; message: string };

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
    const filled = fillInputs(t, values);
    const want = normalizeText(filled.kind === 'ok' ? String(filled.value) : t);
    if (!lines.some((l) => l.includes(want)))
      return { kind: 'failed', message: `The last page does not show "${want}".` };
  }
  return { kind: 'passed' };
}
