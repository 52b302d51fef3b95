/**
 * A recording of every task (issue 30): after each page action, a frame — the tab as the action
 * left it, the acted element highlighted, password fields masked — with the step's one-line
 * summary, stored beside the thread.
 *
 * Cheap by construction: the tool's result is returned first and the frame is made afterwards
 * in a bounded queue worked one job at a time (Chrome allows about two captures a second). When
 * the queue is full the oldest waiting job is dropped: a recording may skip a frame, never slow
 * a step. Private sites (settings) are never captured.
 */
import type { FrameBox, FrameRecord } from '../../../store/frames-repo';
import type { AgentTool, ToolResult } from '../../types';
import type { BrowserToolDetails } from '../details';
import type { CapturedImage } from '../host';
import type { ActionPicture, ActionPictures } from './action-pictures';
import { frameSummary } from './frame-summary';

/** What a frame job needs to make the picture. */
export interface FrameShot {
  tabId: number;
  /** The acted element's box in the top frame's viewport (CSS px), when known. */
  highlight?: { x: number; y: number; width: number; height: number };
  /** A capture the action already took (its requested picture): reused, not retaken. */
  image?: CapturedImage;
}

/** The picture: encoded, highlight and masks already drawn. */
export interface FramePicture {
  mimeType: FrameRecord['mimeType'];
  bytes: Uint8Array;
  width: number;
  height: number;
  highlight?: FrameBox;
}

/**
 * The browser side of recording (background/task-frames-wiring.ts). Contract: `picture`
 * resolves null when no frame can be taken (the tab is gone, hidden, or a browser page) and may
 * reject; `save` is durable when it resolves; `isPrivate` and `knownSecrets` never throw.
 */
export interface TaskFrameHost {
  picture(shot: FrameShot): Promise<FramePicture | null>;
  save(frame: FrameRecord): Promise<void>;
  /** The user marked this page's site private: no frame. */
  isPrivate(url: string): Promise<boolean>;
  knownSecrets(): Promise<readonly { placeholder: string; value: string }[]>;
  now(): number;
  newId(): string;
  log?(msg: string): void;
}

interface FrameJob {
  threadId: string;
  runId: string;
  toolCallId: string;
  tool: string;
  label: string;
  params: unknown;
  details: BrowserToolDetails;
  /** The picture the action requested once the page settled (action-pictures.ts). */
  picture?: Promise<ActionPicture>;
}

/** Jobs waiting at most: past this the oldest is dropped. */
export const FRAME_QUEUE_MAX = 4;

export class TaskRecorder {
  private readonly queue: FrameJob[] = [];
  private working: Promise<void> | null = null;
  /** Frames dropped because the queue was full (bench and tests read it). */
  dropped = 0;
  saved = 0;

  constructor(private readonly host: TaskFrameHost) {}

  /** Queue a frame for a finished action. Never throws, never waits. */
  enqueue(job: FrameJob): void {
    if (this.queue.length >= FRAME_QUEUE_MAX) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(job);
    if (!this.working)
      this.working = this.work().finally(() => {
        this.working = null;
      });
  }

  /** Resolves when every queued frame is stored or given up (tests, bench). */
  async idle(): Promise<void> {
    for (let w = this.working; w !== null; w = this.working) await w;
  }

  private async work(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      try {
        await this.record(job);
      } catch (e) {
        this.host.log?.(`recording frame skipped: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private async record(job: FrameJob): Promise<void> {
    const d = job.details;
    if (d.tabId === undefined) return;
    for (const url of [d.urlBefore, d.urlAfter])
      if (url && (await this.host.isPrivate(url))) return;
    const box = d.highlight;
    const taken = await job.picture;
    // Overtaken by the next action: it may show that action's effect, so no frame for this step.
    if (taken?.kind === 'stale') return;
    const image = taken?.kind === 'image' ? taken.image : undefined;
    const picture = await this.host.picture({
      tabId: d.tabId,
      // A box inside an embedded frame is relative to that frame: not drawn.
      ...(box && box.frameId === 0
        ? { highlight: { x: box.x, y: box.y, width: box.width, height: box.height } }
        : {}),
      ...(image ? { image } : {}),
    });
    if (!picture) return;
    const summary = frameSummary({
      tool: job.tool,
      label: job.label,
      params: job.params,
      details: d,
      secrets: await this.host.knownSecrets(),
    });
    await this.host.save({
      v: 1,
      frameId: this.host.newId(),
      threadId: job.threadId,
      runId: job.runId,
      toolCallId: job.toolCallId,
      tool: job.tool,
      at: this.host.now(),
      summary,
      mimeType: picture.mimeType,
      width: picture.width,
      height: picture.height,
      bytes: picture.bytes,
      size: picture.bytes.byteLength + summary.length,
      ...(picture.highlight ? { highlight: picture.highlight } : {}),
    });
    this.saved++;
  }
}

/**
 * Wrap an acting tool so each successful call queues a frame, made from the picture the action
 * requested (`pictures`) when it took one. Reads (effects `read`) and calls that did not act
 * (errors, holds) record nothing. A write first waits, bounded, for the pictures still being
 * taken, and marks those it gave up on stale (action-pictures.ts): never a later action's effect.
 */
export function recordingFrames<P, D>(
  tool: AgentTool<P, D>,
  recorder: TaskRecorder | undefined,
  pictures?: ActionPictures,
): AgentTool<P, D> {
  if (!recorder || tool.effects !== 'write') return tool;
  const execute = tool.execute.bind(tool);
  return {
    ...tool,
    async execute(id, params, signal, onUpdate, ctx): Promise<ToolResult<D>> {
      await pictures?.overtake();
      const result = await execute(id, params, signal, onUpdate, ctx);
      const details = result.details as BrowserToolDetails | undefined;
      const picture = details?.tabId !== undefined ? pictures?.take(details.tabId) : undefined;
      if (!result.isError && !result.held && details?.tabId !== undefined)
        recorder.enqueue({
          threadId: ctx.threadId,
          runId: ctx.runId,
          toolCallId: id,
          tool: tool.name,
          label: tool.label,
          params,
          details,
          ...(picture !== undefined ? { picture } : {}),
        });
      return result;
    },
  };
}
