/**
 * Where a ref is on screen, in the tab's viewport coordinates (what CDP input expects): the
 * element's frame scrolls it into view and reports its centre; for an element inside a
 * cross-origin frame, the top document adds where that frame's iframe sits.
 */
import type { ElementReport, FrameLocation, LocateResult } from '../../protocol/page-messages';
import type { BrowserToolDeps } from './deps';
import type { RefContext } from './element-target';

export interface LocatedRef {
  x: number;
  y: number;
  element: ElementReport;
  box: { x: number; y: number; width: number; height: number };
}

export async function locateRef(
  deps: BrowserToolDeps,
  r: RefContext,
  signal: AbortSignal,
): Promise<LocatedRef> {
  const loc = await deps.client.call<LocateResult>(
    r.tabId,
    r.frameId,
    { op: 'locate', ref: r.local, docId: r.docId },
    { signal, modelRef: r.modelRef },
  );
  if (r.frameId === 0) return { x: loc.x, y: loc.y, element: loc.element, box: loc.box };
  // Cross-origin frames cannot tell where they are: the top document finds their iframe.
  const info = (await deps.host.listFrames(r.tabId)).find((f) => f.frameId === r.frameId);
  if (!info) throw new Error(`Frame ${r.frameId} is gone. Take a new browser_snapshot.`);
  const frame = await deps.client.call<FrameLocation>(
    r.tabId,
    0,
    {
      op: 'locate_frame',
      url: info.url,
      width: Math.round(info.width),
      height: Math.round(info.height),
    },
    { signal },
  );
  return {
    x: loc.x + frame.x,
    y: loc.y + frame.y,
    element: loc.element,
    box: { ...loc.box, x: loc.box.x + frame.x, y: loc.box.y + frame.y },
  };
}
