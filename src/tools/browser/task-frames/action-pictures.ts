import type { CapturedImage } from '../host';

/**
 * What became of the picture an action requested: taken before anything else acted on the
 * page (`image`), not taken (`none`: a background tab, Chrome's capture limit), or overtaken by
 * a later write before it was taken (`stale`: it might show that write's effect).
 */
export type ActionPicture =
  | { kind: 'image'; image: CapturedImage }
  | { kind: 'none' }
  | { kind: 'stale' };

interface Pending {
  done: Promise<unknown>;
  finished: boolean;
  stale: boolean;
}

/**
 * How long a write waits for earlier pictures before it acts anyway (they become stale). Chrome
 * allows two captures a second, so back-to-back writes (type, type, click) can find the previous
 * picture waiting up to 500 ms for its slot; at 250 ms a loaded CI run recorded 2 frames of 3.
 * A second covers the slot with margin, and costs nothing when the model's turn came between.
 */
export const PICTURE_WAIT_MS = 1000;

/**
 * The picture an action takes of its tab once the page settled, kept off the step's path: the
 * action requests it before its result returns (so it shows the page the result describes) and
 * returns without waiting; the recording takes it for the step's frame (task-recorder.ts).
 *
 * Invariant: a picture still being taken when a later write acts is `stale`, never an image,
 * so no frame shows a later action's effect as an earlier one's. A write waits for earlier
 * pictures at most PICTURE_WAIT_MS (usually they are long done: the model's turn comes between);
 * past that the recording skips that step's frame ("may skip a step, never slow one").
 */
export class ActionPictures {
  private readonly latest = new Map<number, Promise<ActionPicture>>();
  private readonly pending = new Set<Pending>();

  constructor(private readonly sleep: (ms: number) => Promise<void>) {}

  /** The picture of `tabId` an action just requested. */
  put(tabId: number, capture: Promise<CapturedImage>): void {
    const entry: Pending = { done: Promise.resolve(), finished: false, stale: false };
    const finish = (picture: ActionPicture): ActionPicture => {
      entry.finished = true;
      this.pending.delete(entry);
      return entry.stale ? { kind: 'stale' } : picture;
    };
    const picture = capture.then(
      (image) => finish({ kind: 'image', image }),
      () => finish({ kind: 'none' }),
    );
    entry.done = picture;
    this.pending.add(entry);
    this.latest.set(tabId, picture);
  }

  /** The picture the action that just returned on `tabId` requested, once (or undefined). */
  take(tabId: number): Promise<ActionPicture> | undefined {
    const p = this.latest.get(tabId);
    this.latest.delete(tabId);
    return p;
  }

  /**
   * A write is about to act: waits (bounded) for the pictures being taken, then marks those
   * still not taken stale.
   */
  async overtake(): Promise<void> {
    const waiting = [...this.pending];
    if (!waiting.length) return;
    await Promise.race([Promise.all(waiting.map((e) => e.done)), this.sleep(PICTURE_WAIT_MS)]);
    for (const entry of waiting) if (!entry.finished) entry.stale = true;
  }
}
