/**
 * The approval card's sentence: what the tool will do, on what, in words ("Type “buy milk” into
 * New todo, then press Enter"), and where when the action lands in an embedded frame ("in a frame
 * of A, from B"). Pure; the raw parameters stay one click away on the card.
 */
import type { ApprovalRequest } from '../../src/protocol';
import { rec, str } from './facts';
import { describeCall, type SummaryLine } from './tool-summary';

export function approvalSummary(
  request: Pick<ApprovalRequest, 'tool' | 'params' | 'target'>,
): SummaryLine | null {
  const target = rec(request.target);
  const el = rec(target.element);
  const role = str(el.role);
  return describeCall('ask', {
    name: request.tool.name,
    params: request.params,
    element: role !== undefined ? { role, name: str(el.name) ?? '' } : null,
    url: str(target.url),
    title: str(target.title),
  });
}

/**
 * When the action runs inside an embedded frame from another origin than the page: the page's
 * origin (A, `target.topOrigin`) and the frame's (B, `target.origin`, the one judged). The engine
 * sets `topOrigin` only for such frames; equal or missing origins mean no frame line.
 */
export function frameLine(
  request: Pick<ApprovalRequest, 'target'>,
): { page: string; frame: string } | null {
  const { topOrigin } = request.target;
  const frame = request.target.origin ?? originOf(request.target.url);
  if (!topOrigin || !frame || topOrigin === frame) return null;
  return { page: topOrigin, frame };
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
