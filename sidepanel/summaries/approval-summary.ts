/**
 * The approval card's sentence: what the tool will do, on what, in words ("Type “buy milk” into
 * New todo, then press Enter"), and where when the action lands in an embedded frame ("in a frame
 * of A, from B"). Pure; the raw parameters stay one click away on the card.
 */
import type { ApprovalRequest } from '../../src/protocol';
import { rec, str } from './facts';
import { describeCall, type SummaryLine } from './tool-summary';

export function approvalSummary(request: Pick<ApprovalRequest, 'tool' | 'params' | 'target'>): SummaryLine | null {
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
 * When the action runs inside a frame from another origin than the page: the page's origin (A)
 * and the frame's (B). The engine may name the fields a few ways (`frameOrigin` with
 * `topOrigin` / `pageOrigin`, or a `frame` object); anything missing or equal means no line.
 */
export function frameLine(request: Pick<ApprovalRequest, 'target'>): { page: string; frame: string } | null {
  const target = rec(request.target);
  const frame = rec(target.frame);
  const frameOrigin = str(target.frameOrigin) ?? str(frame.origin);
  if (!frameOrigin) return null;
  const page = str(target.topOrigin) ?? str(target.pageOrigin) ?? str(frame.topOrigin) ?? str(target.origin) ?? originOf(str(target.url));
  if (!page || page === frameOrigin) return null;
  return { page, frame: frameOrigin };
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
