/**
 * The snapshot of one document: walk, render, budget, and the incremental mode that returns
 * only what changed since the previous snapshot of this document.
 */
import type { PageEnv } from '../env';
import type { RefRegistry } from '../refs';
import { diffLines } from './diff';
import { applyBudget, renderLines } from './render';
import { pageOf } from './pages';
import { dropRepeatedLabels } from './repeated-labels';
import { type CrossFrame, SnapshotWalker } from './walker';
import { outlineLines, type OutlineLine } from './outline-lines';
import { estimateTokens } from '../dom/text';

export interface SnapshotParams {
  mode: 'viewport' | 'full';
  incremental: boolean;
  maxTokens: number;
  textLimit: number;
  includeUrls: boolean;
  refPrefix: string;
  /** The snapshot cursor (pages.ts): which page of a page larger than the budget. */
  page?: number;
  afterRef?: string;
}

export interface ScrollInfo {
  x: number;
  y: number;
  /** Largest scrollY: the page continues below the viewport when y < maxY. */
  maxY: number;
  viewportWidth: number;
  viewportHeight: number;
}

export interface SnapshotOutput {
  text: string;
  /** Cross-origin iframes whose `[frameId=#<nonce>-<index>]` placeholders the service worker fills in. */
  frames: CrossFrame[];
  frameNonce: string;
  /** `full`: the whole outline; `diff`: changes only; `unchanged`: nothing changed. */
  kind: 'full' | 'diff' | 'unchanged';
  truncated: boolean;
  refs: number;
  lines: number;
  estTokens: number;
  ms: number;
  scroll: ScrollInfo;
  /** Full snapshots: the page of the outline shown and how many there are at this budget. */
  page?: number;
  pages?: number;
  refMissing?: boolean;
  /** Full snapshots: the shown lines as structure (outline-lines.ts), for code, not the model. */
  outline?: OutlineLine[];
}

export function scrollInfo(win: Window): ScrollInfo {
  const doc = win.document.documentElement;
  return {
    x: Math.round(win.scrollX),
    y: Math.round(win.scrollY),
    maxY: Math.max(0, Math.round(doc.scrollHeight - win.innerHeight)),
    viewportWidth: win.innerWidth,
    viewportHeight: win.innerHeight,
  };
}

export class Snapshotter {
  /** Previous full rendering per (mode, prefix), the base of incremental snapshots. */
  private readonly previous = new Map<string, string[]>();
  /** Per document (stable for incremental diffs), unknown to the page. */
  private readonly frameNonce = Math.random().toString(36).slice(2, 8);

  constructor(
    private readonly env: PageEnv,
    private readonly registry: RefRegistry,
    private readonly exclude: ReadonlySet<Element>,
  ) {}

  take(p: SnapshotParams): SnapshotOutput {
    const t0 = this.env.now();
    const walker = new SnapshotWalker(this.env, this.registry, {
      viewportOnly: p.mode === 'viewport',
      textLimit: p.textLimit,
      refPrefix: p.refPrefix,
      includeUrls: p.includeUrls,
      exclude: this.exclude,
      frameNonce: this.frameNonce,
      // Walking far past the budget only costs time; incremental mode and the cursor need the
      // page up to the lines asked for.
      maxChars:
        p.incremental || p.afterRef
          ? 2_000_000
          : Math.min(2_000_000, Math.max(20_000, p.maxTokens * 8 * (p.page ?? 1) + 4000)),
    });
    walker.walkDocument(this.env.win.document, 0);
    walker.distinguishRepeats();
    // In place (no spread: a huge page's lines would overflow the argument list).
    const kept = dropRepeatedLabels(walker.lines);
    walker.lines.length = 0;
    for (const line of kept) walker.lines.push(line);
    const rendered = renderLines(walker.lines);
    const key = `${p.mode}|${p.refPrefix}|${p.textLimit}|${p.includeUrls}`;
    const prev = this.previous.get(key);
    if (!walker.stopped) this.previous.set(key, rendered);
    this.registry.prune();

    const base = {
      frames: walker.crossFrames,
      frameNonce: this.frameNonce,
      refs: walker.refs,
      lines: rendered.length,
      scroll: scrollInfo(this.env.win),
    };
    if (p.incremental && prev && !walker.stopped) {
      const diff = diffLines(prev, rendered);
      if (diff.kind === 'unchanged') {
        const text = 'No changes since the previous snapshot of this page.';
        return {
          ...base,
          text,
          kind: 'unchanged',
          truncated: false,
          estTokens: estimateTokens(text),
          ms: this.env.now() - t0,
        };
      }
      // A diff bigger than most of the page helps less than the page itself.
      if (diff.added + diff.removed < rendered.length * 0.6) {
        const budgeted = applyBudget(diff.text.split('\n'), p.maxTokens, false);
        return { ...base, ...budgeted, kind: 'diff', ms: this.env.now() - t0 };
      }
    }
    const { page, pages, refMissing, from, to, ...budgeted } = pageOf(
      rendered,
      p.maxTokens,
      walker.stopped,
      {
        page: p.page,
        afterRef: p.afterRef,
      },
    );
    return {
      ...base,
      ...budgeted,
      kind: 'full',
      ms: this.env.now() - t0,
      page,
      pages,
      ...(refMissing ? { refMissing } : {}),
      outline: outlineLines(walker.lines, from, to),
    };
  }
}
