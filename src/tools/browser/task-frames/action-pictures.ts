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
  done: boolean;
  stale: boolean;
}

/**
 * The picture an action takes of its tab once the page settled, kept off the step's path: the
 * action requests it before its result returns (so it shows the page the result describes) and
 * returns without waiting; the recording takes it for the step's frame (task-recorder.ts).
 *
 * Invariant: a picture still being taken when a later write starts is `stale`, never an image,
 * so no frame shows a later action's effect as an earlier one's. Nothing waits for a picture:
 * under load the recording skips that step's frame ("may skip a step, never slow one").
 */
export class ActionPictures {
  private readonly latest = new Map<number, Promise<ActionPicture>>();
  private readonly pending = new Set<Pending>();

  /** The picture of `tabId` an action just requested. */
  put(tabId: number, capture: Promise<CapturedImage>): void {
    const entry: Pending = { done: false, stale: false };
    this.pending.add(entry);
    const finish = (picture: ActionPicture): ActionPicture => {
      entry.done = true;
      this.pending.delete(entry);
      return entry.stale ? { kind: 'stale' } : picture;
    };
    this.latest.set(
      tabId,
      capture.then(
        (image) => finish({ kind: 'image', image }),
        () => finish({ kind: 'none' }),
      ),
    );
  }

  /** The picture the action that just returned on `tabId` requested, once (or undefined). */
  take(tabId: number): Promise<ActionPicture> | undefined {
    const p = this.latest.get(tabId);
    this.latest.delete(tabId);
    return p;
  }

  /** A write is about to act: every picture not taken yet is stale. */
  overtake(): void {
    for (const entry of this.pending) if (!entry.done) entry.stale = true;
  }
}
