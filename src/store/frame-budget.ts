/**
 * Which frames of a thread's recording to prune so the thread stays within its byte budget
 * (issue 30: frames are stored beside the thread, with a size budget per thread). Pure.
 *
 * Policy: the oldest frames go first (by `at`, then `frameId` so ties are stable); the frame
 * just added is never pruned by its own insertion, even when it alone exceeds the budget (a
 * recording keeps at least its latest frame). Frames not in the list are kept.
 */
export interface FrameSize {
  frameId: string;
  at: number;
  size: number;
}

/** The default budget of one thread's frames: 20 MB. */
export const FRAME_BUDGET_BYTES = 20 * 1024 * 1024;

export function framesToPrune(
  frames: readonly FrameSize[],
  budgetBytes: number,
  keep?: string,
): string[] {
  let total = frames.reduce((n, f) => n + f.size, 0);
  if (total <= budgetBytes) return [];
  const oldestFirst = [...frames].sort((a, b) =>
    a.at !== b.at ? a.at - b.at : a.frameId < b.frameId ? -1 : a.frameId > b.frameId ? 1 : 0,
  );
  const out: string[] = [];
  for (const f of oldestFirst) {
    if (total <= budgetBytes) break;
    if (f.frameId === keep) continue;
    out.push(f.frameId);
    total -= f.size;
  }
  return out;
}
