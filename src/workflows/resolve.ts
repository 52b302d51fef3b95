/**
 * Finds a locator's element in a fresh snapshot: a unique match, or a divergence with its reason.
 * Ambiguity is a divergence, never a guess: a workflow acts only on an element it can name.
 *
 * Role, name, input type, frame, landmarks and the nearest heading must all agree (an "Add to
 * cart" under another product's heading is another element). Nearby text only breaks ties: it
 * holds prices and counts that may change, so it may narrow a set but never reject a lone match.
 */
import type { SemanticLocator } from './locator';
import type { SnapshotOutline } from '../tools/browser/details';
import { normalizeText, outlineOf, type Outline, type OutlineControl } from './outline';
import { matchesUrlPattern } from './url-pattern';

export type DivergenceReason = 'none' | 'ambiguous' | 'page_differs';

export type Resolution =
  | { kind: 'match'; ref: string; control: OutlineControl }
  | { kind: 'diverged'; reason: DivergenceReason; message: string; candidates: number };

function same(a: string, b: string): boolean {
  return normalizeText(a) === normalizeText(b);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => same(x, b[i]));
}

function lastOf(a: readonly string[]): string | undefined {
  return a.length ? a[a.length - 1] : undefined;
}

function nearScore(l: SemanticLocator, c: OutlineControl): number {
  const mine = new Set(c.nearText.map(normalizeText));
  return l.nearText.filter((t) => mine.has(normalizeText(t))).length;
}

export function resolveLocator(l: SemanticLocator, outline: Outline, url?: string): Resolution {
  const pageUrl = url ?? outline.url;
  if (l.urlPattern && pageUrl && !matchesUrlPattern(l.urlPattern, pageUrl)) {
    return {
      kind: 'diverged',
      reason: 'page_differs',
      message: `The page is ${pageUrl}; the step expects ${l.urlPattern}.`,
      candidates: 0,
    };
  }
  const byName = outline.controls.filter((c) => c.role === l.role && same(c.name, l.name));
  const typed = byName.filter((c) => c.inputType === l.inputType);
  const framed = typed.filter(
    (c) => c.frameId === l.frameId || (l.frameId !== 0 && c.frameId !== 0),
  );
  const landmarked = framed.filter((c) => sameList(c.landmarks, l.landmarks));
  const heading = lastOf(l.headings);
  const headed = landmarked.filter((c) =>
    heading === undefined
      ? c.headings.length === 0
      : lastOf(c.headings) !== undefined && same(lastOf(c.headings)!, heading),
  );
  let found = headed;
  if (found.length > 1) {
    const full = found.filter((c) => sameList(c.headings, l.headings));
    if (full.length) found = full;
  }
  if (found.length > 1 && l.nearText.length) {
    const best = Math.max(...found.map((c) => nearScore(l, c)));
    if (best > 0) found = found.filter((c) => nearScore(l, c) === best);
  }
  if (found.length === 1) return { kind: 'match', ref: found[0].ref, control: found[0] };
  const what = `${l.role}${l.name ? ` "${l.name}"` : ''}${heading ? ` under "${heading}"` : ''}`;
  if (found.length === 0) {
    const near = byName.length
      ? ` (${byName.length} ${l.role} "${l.name}" elsewhere on the page)`
      : '';
    return {
      kind: 'diverged',
      reason: 'none',
      message: `No ${what} on the page${near}.`,
      candidates: 0,
    };
  }
  return {
    kind: 'diverged',
    reason: 'ambiguous',
    message: `${found.length} elements match ${what}; the workflow does not guess.`,
    candidates: found.length,
  };
}

/** Resolve against a structured snapshot (`details.outline` of browser_snapshot). */
export function resolveInSnapshot(
  l: SemanticLocator,
  snapshot: SnapshotOutline,
  url?: string,
): Resolution {
  return resolveLocator(l, outlineOf(snapshot), url);
}
