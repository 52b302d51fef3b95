/**
 * Waiting on the page: `settle` after an action (DOM quiet for a short while, bounded) and the
 * model's explicit `wait_for` conditions. Both are bounded; a timeout is a normal answer.
 */
import type { AgentContext } from '../agent-context';
import type { SettleResult } from '../../src/protocol/page-messages';
import { isLive } from '../refs';
import { ChangeTracker } from './change-tracker';

export async function settle(
  ctx: AgentContext,
  quietMs: number,
  timeoutMs: number,
  ref: string | undefined,
  docId: string | undefined,
): Promise<SettleResult> {
  await ctx.pending;
  const tracker =
    ctx.tracker ??
    new ChangeTracker(ctx.doc, ctx.env.now, ctx.highlighter.owned, undefined, (el) =>
      ctx.env.shadowRootOf(el),
    );
  ctx.tracker = null;
  const quiet = await tracker.waitQuiet(quietMs, timeoutMs);
  tracker.stop();
  const result: SettleResult = {
    docId: ctx.registry.docId,
    url: ctx.env.win.location.href,
    title: ctx.doc.title,
    quiet,
    mutations: tracker.mutations,
    appeared: tracker.appeared(),
  };
  if (ctx.refused) {
    result.refused = ctx.refused;
    ctx.refused = undefined;
  }
  // Still on the old document after the quiet wait: the navigation has not committed yet.
  if (tracker.navigatingTo && ctx.env.win.location.href !== tracker.navigatingTo)
    result.navigating = tracker.navigatingTo;
  if (ref !== undefined && (docId === undefined || docId === ctx.registry.docId)) {
    const found = ctx.registry.lookup(ref);
    result.element = found.kind === 'ok' ? ctx.report(found.element) : { gone: true };
  }
  return result;
}

export type WaitCondition =
  | 'text_visible'
  | 'text_gone'
  | 'ref_gone'
  | 'ref_visible'
  | 'network_quiet'
  | 'dom_quiet';

export interface WaitResult {
  met: boolean;
  waitedMs: number;
  detail: string;
}

/** Polls the condition on every DOM change and at least every 250 ms, until met or timed out. */
export async function waitFor(
  ctx: AgentContext,
  condition: WaitCondition,
  text: string | undefined,
  ref: string | undefined,
  docId: string | undefined,
  timeoutMs: number,
): Promise<WaitResult> {
  const start = ctx.env.now();
  if (condition === 'dom_quiet') {
    const tracker = new ChangeTracker(
      ctx.doc,
      ctx.env.now,
      ctx.highlighter.owned,
      undefined,
      (el) => ctx.env.shadowRootOf(el),
    );
    const met = await tracker.waitQuiet(500, timeoutMs);
    tracker.stop();
    return {
      met,
      waitedMs: ctx.env.now() - start,
      detail: met ? 'the page stopped changing' : 'the page kept changing',
    };
  }
  if (
    (condition === 'ref_gone' || condition === 'ref_visible') &&
    docId !== undefined &&
    docId !== ctx.registry.docId
  ) {
    // The ref's document is gone: it is certainly gone, and can never become visible here.
    return { met: condition === 'ref_gone', waitedMs: 0, detail: 'the page navigated' };
  }
  const test = predicate(ctx, condition, text, ref);
  const tracker = new ChangeTracker(ctx.doc, ctx.env.now, ctx.highlighter.owned, undefined, (el) =>
    ctx.env.shadowRootOf(el),
  );
  try {
    return await new Promise<WaitResult>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let done = false;
      const finish = (met: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({
          met,
          waitedMs: Math.round(ctx.env.now() - start),
          detail: describe(condition, text, ref, met),
        });
      };
      const check = () => {
        if (done) return;
        if (test()) return finish(true);
        if (ctx.env.now() - start >= timeoutMs) return finish(false);
        clearTimeout(timer);
        timer = setTimeout(check, 250);
      };
      tracker.onChange(() => {
        clearTimeout(timer);
        timer = setTimeout(check, 30);
      });
      check();
    });
  } finally {
    tracker.stop();
  }
}

function predicate(
  ctx: AgentContext,
  condition: WaitCondition,
  text: string | undefined,
  ref: string | undefined,
): () => boolean {
  switch (condition) {
    case 'text_visible':
    case 'text_gone': {
      const needle = (text ?? '').toLowerCase();
      const present = () => (ctx.doc.body?.innerText ?? '').toLowerCase().includes(needle);
      return condition === 'text_visible' ? present : () => !present();
    }
    case 'ref_gone':
    case 'ref_visible': {
      const visible = () => {
        const found = ref ? ctx.registry.lookup(ref) : { kind: 'unknown' as const };
        if (found.kind !== 'ok' || !isLive(found.element)) return false;
        const el = found.element as HTMLElement;
        if (
          typeof el.checkVisibility === 'function' &&
          !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })
        ) {
          return false;
        }
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      };
      return condition === 'ref_visible' ? visible : () => !visible();
    }
    case 'network_quiet':
      return networkQuiet(ctx);
    default:
      return () => true;
  }
}

/**
 * The page side cannot see requests in flight; it sees finished ones (resource timing). "Quiet"
 * is: the document has loaded and no resource finished during the last 500 ms.
 */
function networkQuiet(ctx: AgentContext): () => boolean {
  const perf = ctx.env.win.performance;
  let count = perf.getEntriesByType('resource').length;
  let lastChange = ctx.env.now();
  return () => {
    const n = perf.getEntriesByType('resource').length;
    if (n !== count) {
      count = n;
      lastChange = ctx.env.now();
    }
    return ctx.doc.readyState === 'complete' && ctx.env.now() - lastChange >= 500;
  };
}

function describe(
  condition: WaitCondition,
  text: string | undefined,
  ref: string | undefined,
  met: boolean,
): string {
  switch (condition) {
    case 'text_visible':
      return met ? `text "${text}" is on the page` : `text "${text}" did not appear`;
    case 'text_gone':
      return met ? `text "${text}" is gone` : `text "${text}" is still on the page`;
    case 'ref_gone':
      return met ? `element ${ref} is gone or hidden` : `element ${ref} is still shown`;
    case 'ref_visible':
      return met ? `element ${ref} is visible` : `element ${ref} did not become visible`;
    case 'network_quiet':
      return met ? 'no network activity for 500 ms' : 'the page kept loading resources';
    default:
      return met ? 'done' : 'timed out';
  }
}
