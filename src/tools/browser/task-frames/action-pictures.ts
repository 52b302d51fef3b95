import type { CapturedImage } from '../host';

/**
 * The picture an action takes of its tab once the page settled, kept off the step's path: the
 * action requests it before its result returns (so it shows the page the result describes) and
 * returns without waiting; the recording takes it for the step's frame (task-recorder.ts).
 *
 * Invariant: a write waits until every picture requested before it was taken (`taken`), so no
 * later action can change the page under an earlier action's picture. Reads do not wait: they
 * change nothing a picture could show.
 */
export class ActionPictures {
  private readonly latest = new Map<number, Promise<CapturedImage | undefined>>();
  private readonly inFlight = new Set<Promise<unknown>>();

  /** The picture of `tabId` an action just requested. Never rejects once stored. */
  put(tabId: number, picture: Promise<CapturedImage>): void {
    const p = picture.catch(() => undefined);
    this.latest.set(tabId, p);
    this.inFlight.add(p);
    void p.then(() => this.inFlight.delete(p));
  }

  /** The picture the action that just returned on `tabId` requested, once (or undefined). */
  take(tabId: number): Promise<CapturedImage | undefined> | undefined {
    const p = this.latest.get(tabId);
    this.latest.delete(tabId);
    return p;
  }

  /** Resolves once every picture requested so far has been taken (or failed). */
  async taken(): Promise<void> {
    if (this.inFlight.size) await Promise.all([...this.inFlight]);
  }
}
