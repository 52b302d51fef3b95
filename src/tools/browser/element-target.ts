/**
 * Resolving a ref for an acting tool: which tab and frame, the document the ref came from, and
 * (for approval) what the element is — a download link, a payment form's submit, a file input.
 */
import type { ElementReport } from '../../../content-scripts/messages';
import type { ToolCallContext, ToolTarget } from '../types';
import type { BrowserToolDeps } from './deps';
import { parseRef } from './refs';
import { pageTarget, tabIdFor } from './target';

export interface RefContext {
  tabId: number;
  frameId: number;
  local: string;
  modelRef: string;
  docId: string | undefined;
}

export async function refContext(deps: BrowserToolDeps, params: { ref: string; tabId?: number }, ctx: ToolCallContext): Promise<RefContext> {
  const tabId = tabIdFor(params, ctx);
  const { frameId, local } = parseRef(params.ref);
  return { tabId, frameId, local, modelRef: params.ref.trim(), docId: await deps.client.docOf(tabId, frameId) };
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

/**
 * The page target of an element, with `alwaysAsk` set for downloads and payment-like submits.
 * The element is described once here (before approval); a stale ref fails here already.
 */
export async function elementTarget(deps: BrowserToolDeps, r: RefContext, checks: RiskChecks): Promise<ToolTarget> {
  const target = await pageTarget(deps.host, r.tabId, r.frameId);
  if (target.forbidden) return target;
  const el = await describeRef(deps, r);
  if (checks.activates && el.download) target.alwaysAsk = `downloads a file (${el.href ?? 'link'})`;
  const submits = (checks.activates && el.submitsForm === 'click') || (checks.submits && el.submitsForm !== undefined);
  if (submits && el.submitsPaymentForm) {
    target.alwaysAsk = 'submits a form with payment card fields';
  }
  return target;
}
