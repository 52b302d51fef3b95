/**
 * Cross-origin iframes in a snapshot carry `[frameId=#<nonce>-<index>]` placeholders: the page
 * cannot know extension frame ids. Here they are paired with the tab's frames (by URL, then
 * size) and replaced with real ids the model can pass as frameId; unmatched ones are dropped.
 */
import { sameSize, urlScore } from '../../../content-scripts/frame-url';
import type { CrossFrameReport } from '../../protocol/page-messages';
import type { BrowserHost, FrameInfo } from './host';

export function matchFrames(
  iframes: readonly CrossFrameReport[],
  frames: readonly FrameInfo[],
  exclude: number,
): Map<number, number> {
  const used = new Set<number>([0, exclude]);
  const out = new Map<number, number>();
  for (const iframe of iframes) {
    let best: { frameId: number; score: number } | null = null;
    for (const f of frames) {
      if (used.has(f.frameId)) continue;
      const url = urlScore(iframe.src, f.url);
      if (!url) continue;
      const score = url + (sameSize(iframe.width, iframe.height, f.width, f.height) ? 1.5 : 0);
      if (!best || score > best.score) best = { frameId: f.frameId, score };
    }
    if (best) {
      out.set(iframe.index, best.frameId);
      used.add(best.frameId);
    }
  }
  return out;
}

export function fillFramePlaceholders(
  text: string,
  nonce: string,
  ids: ReadonlyMap<number, number>,
): string {
  const pattern = new RegExp(`\\s?\\[frameId=#${nonce.replace(/[^a-z0-9]/gi, '')}-(\\d+)\\]`, 'g');
  return text.replace(pattern, (_m, index: string) => {
    const id = ids.get(Number(index));
    return id === undefined ? '' : ` [frameId=${id}]`;
  });
}

/** Lists the tab's frames, tolerating pages where that is not allowed (then no ids are shown). */
export async function resolveFrameIds(
  host: BrowserHost,
  tabId: number,
  snapshotFrame: number,
  iframes: readonly CrossFrameReport[],
): Promise<Map<number, number>> {
  if (!iframes.length) return new Map();
  const frames = await host.listFrames(tabId).catch(() => []);
  return matchFrames(iframes, frames, snapshotFrame);
}
