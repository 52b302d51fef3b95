/**
 * Resolving a ref for an acting tool: which tab and frame, the document the ref came from, and
 * (for approval) what the element is — a download link, a payment form's submit, a file input.
 */
import type { ElementReport } from '../../protocol/page-messages';
import type { ToolCallInfo, ToolTarget } from '../types';
import type { BrowserToolDeps } from './deps';
import { parseRef } from './refs';
import { exfiltrationRisk } from './restricted';
import { pageTarget, tabIdFor } from './target';

export interface RefContext {
  tabId: number;
  frameId: number;
  local: string;
  modelRef: string;
  docId: string | undefined;
}

export async function refContext(
  deps: BrowserToolDeps,
  params: { ref: string; tabId?: number },
  ctx: ToolCallInfo,
): Promise<RefContext> {
  const tabId = tabIdFor(params, ctx);
  const { frameId, local } = parseRef(params.ref);
  return {
    tabId,
    frameId,
    local,
    modelRef: params.ref.trim(),
    docId: await deps.client.docOf(tabId, frameId),
  };
}

export async function describeRef(deps: BrowserToolDeps, r: RefContext): Promise<ElementReport> {
  const res = await deps.client.call<{ element: ElementReport }>(
    r.tabId,
    r.frameId,
    { op: 'describe', ref: r.local, docId: r.docId },
    { modelRef: r.modelRef, timeoutMs: 5000 },
  );
  return res.element;
}

export interface RiskChecks {
  /** The action presses Enter in the element (type with submit, press_key Enter). */
  submits?: boolean;
  /** The action clicks the element: downloads and payment submit buttons ask. */
  activates?: boolean;
}

/** An http(s) URL on another origin than `pageOrigin`, or undefined. */
function otherSite(pageOrigin: string | undefined, url: string | undefined): URL | undefined {
  if (!url) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return u.origin === pageOrigin ? undefined : u;
}

/**
 * Sets `alwaysAsk` for what acting on `el` would do — a download, a payment-like submit, data
 * sent to another site — and makes a navigation to another site (a link, a form posted there)
 * a write on its destination, as browser_navigate is: the page's rule does not cover it, and
 * the approval names the site the data goes to.
 */
export function applyElementRisk(
  target: ToolTarget,
  el: ElementReport,
  checks: RiskChecks,
): ToolTarget {
  // For the approval card's sentence ("Type … into New todo"); the verdict never reads it.
  target.element = { role: el.role, name: el.name };
  if (checks.activates && el.download) target.alwaysAsk = `downloads a file (${el.href ?? 'link'})`;
  const submits =
    (checks.activates && el.submitsForm === 'click') ||
    (checks.submits && el.submitsForm !== undefined);
  if (submits && el.submitsPaymentForm) {
    target.alwaysAsk = 'submits a form with payment card fields';
  }
  const form = submits ? otherSite(target.origin, el.formAction) : undefined;
  const link =
    checks.activates && !el.download && !form ? otherSite(target.origin, el.href) : undefined;
  const dest = form ?? link;
  // A same-site link or form can still carry another site's address (an open redirect) or
  // credentials: judged on the address it opens, as browser_navigate would be.
  const sameSite = !dest
    ? ((checks.activates && !el.download ? el.href : undefined) ??
      (submits ? el.formAction : undefined))
    : undefined;
  const sameSiteRisk = sameSite ? exfiltrationRisk(target.url, sameSite) : undefined;
  if (sameSiteRisk) target.alwaysAsk ??= sameSiteRisk;
  if (dest) {
    const from = target.url;
    target.url = dest.href;
    target.origin = dest.origin;
    // The title and icon describe the page the action starts from, not where it goes.
    delete target.title;
    delete target.favIconUrl;
    if (form)
      target.alwaysAsk ??= `submits a form to another site (${dest.origin}): what is in the form goes with it`;
    else target.alwaysAsk ??= exfiltrationRisk(from, dest.href);
  }
  return target;
}

/**
 * The page target of an element, with `alwaysAsk` set for downloads and payment-like submits.
 * The element is described once here (before approval); a stale ref fails here already.
 */
export async function elementTarget(
  deps: BrowserToolDeps,
  r: RefContext,
  checks: RiskChecks,
): Promise<ToolTarget> {
  const target = await pageTarget(deps.host, r.tabId, r.frameId, r.modelRef);
  if (target.forbidden) return target;
  return applyElementRisk(target, await describeRef(deps, r), checks);
}

interface RiskReport {
  element?: ElementReport;
  inFrame?: boolean;
  hasFocus?: boolean;
}

/**
 * The frame a key press goes to when the top page's focus is inside a cross-origin frame: the
 * one that has the focus and whose focused element is its own (not a deeper frame's).
 */
async function focusedFrame(
  deps: BrowserToolDeps,
  tabId: number,
): Promise<{ frameId: number; report: RiskReport } | undefined> {
  const frames = (await deps.host.listFrames(tabId).catch(() => [])).filter((f) => f.frameId !== 0);
  for (const f of frames) {
    const report = await deps.client
      .call<RiskReport>(tabId, f.frameId, { op: 'describe_focused' }, { timeoutMs: 2000 })
      .catch(() => undefined);
    if (report?.hasFocus && !report.inFrame) return { frameId: f.frameId, report };
  }
  return undefined;
}

/**
 * The page target of an action without a ref: a key press on the focused element, or a click
 * at viewport coordinates. What it lands on is judged as if the model had named it.
 */
export async function unnamedElementTarget(
  deps: BrowserToolDeps,
  tabId: number,
  at: { focused: true } | { x: number; y: number },
  checks: RiskChecks,
): Promise<ToolTarget> {
  const target = await pageTarget(deps.host, tabId);
  if (target.forbidden) return target;
  const request =
    'focused' in at
      ? ({ op: 'describe_focused' } as const)
      : ({ op: 'describe_at', x: at.x, y: at.y } as const);
  const found = await deps.client.call<RiskReport>(tabId, 0, request, { timeoutMs: 5000 });
  if (found.inFrame && 'focused' in at) {
    // The key goes to the focused frame: judged there, on its origin and rule, as a ref would be.
    const inner = await focusedFrame(deps, tabId);
    if (inner) {
      const frame = await pageTarget(deps.host, tabId, inner.frameId);
      if (frame.forbidden || !inner.report.element) return frame;
      return applyElementRisk(frame, inner.report.element, checks);
    }
  }
  if (found.inFrame) {
    target.alwaysAsk =
      'focused' in at
        ? 'presses a key inside an embedded frame Keel cannot inspect'
        : 'clicks inside an embedded frame Keel cannot inspect';
    return target;
  }
  return found.element ? applyElementRisk(target, found.element, checks) : target;
}
