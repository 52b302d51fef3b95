import type { KeelDB } from './db';
import { FRAME_BUDGET_BYTES, framesToPrune } from './frame-budget';
import type { RECORD_VERSION } from './records';

/** A box on a frame's image, in the image's pixels. */
export interface FrameBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * One frame of a task's recording (issue 30): the tab after a page action, the acted element
 * highlighted and password fields masked (both already drawn into `bytes`), and the step's
 * one-line summary (site secrets already redacted). Not an engine record: frames are written
 * beside the thread, outside the engine's transactions, and losing one loses nothing durable.
 */
export interface FrameRecord {
  v: typeof RECORD_VERSION;
  frameId: string;
  threadId: string;
  runId: string;
  /** The tool call whose action the frame shows. */
  toolCallId: string;
  tool: string;
  at: number;
  summary: string;
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  width: number;
  height: number;
  /** The encoded image. */
  bytes: Uint8Array;
  /** `bytes.byteLength` plus the summary: what counts against the thread's budget. */
  size: number;
  /** The acted element's box, when known (already drawn; kept for players that redraw it). */
  highlight?: FrameBox;
}

/** What `FramesRepo.add` did: the frames it pruned to keep the thread within budget. */
export interface FrameAdded {
  pruned: string[];
  threadBytes: number;
}

/** The recording frames of every thread (schema v4, table `frames`). */
export class FramesRepo {
  constructor(private readonly db: KeelDB) {}

  /**
   * Store a frame, then prune the thread's oldest frames past `budgetBytes`, in one
   * transaction (two captures racing cannot both skip pruning). Durable when it resolves.
   */
  async add(frame: FrameRecord, budgetBytes = FRAME_BUDGET_BYTES): Promise<FrameAdded> {
    return this.db.transaction('rw', this.db.frames, async () => {
      await this.db.frames.put(frame);
      const sizes: { frameId: string; at: number; size: number }[] = [];
      await this.db.frames
        .where('threadId')
        .equals(frame.threadId)
        .each((f) => {
          sizes.push({ frameId: f.frameId, at: f.at, size: f.size });
        });
      const pruned = framesToPrune(sizes, budgetBytes, frame.frameId);
      if (pruned.length) await this.db.frames.bulkDelete(pruned);
      const gone = new Set(pruned);
      const threadBytes = sizes.filter((s) => !gone.has(s.frameId)).reduce((n, s) => n + s.size, 0);
      return { pruned, threadBytes };
    });
  }

  /** A thread's frames, oldest first; only one run's when `runId` is given. */
  async list(threadId: string, runId?: string): Promise<FrameRecord[]> {
    const all = await this.db.frames
      .where('[threadId+at]')
      .between([threadId, -Infinity], [threadId, Infinity])
      .toArray();
    return runId === undefined ? all : all.filter((f) => f.runId === runId);
  }

  /** Bytes a thread's frames take. */
  async threadBytes(threadId: string): Promise<number> {
    let n = 0;
    await this.db.frames
      .where('threadId')
      .equals(threadId)
      .each((f) => {
        n += f.size;
      });
    return n;
  }

  /** Forget a thread's recording (the thread was deleted). */
  async deleteThread(threadId: string): Promise<number> {
    return this.db.frames.where('threadId').equals(threadId).delete();
  }
}
