import type { SecretBoxesResult } from '../protocol/page-messages';
import type { SecretSource } from '../secrets/site-secrets';
import type { DexieStore } from '../store/store';
import type { BrowserHost, CapturedImage } from '../tools/browser/host';
import { PageClient } from '../tools/browser/page-client';
import { THUMBNAIL_MAX_WIDTH } from '../tools/browser/page-action';
import { knownValues } from '../tools/browser/secret-redaction';
import {
  type FramePicture,
  type FrameShot,
  TaskRecorder,
} from '../tools/browser/task-frames/task-recorder';

/**
 * A frame is at most this wide (keeps the aspect): the width of the picture an action requests
 * (page-action.ts), so frames made from it and frames captured here are the same size.
 */
const FRAME_MAX_WIDTH = THUMBNAIL_MAX_WIDTH;
const FRAME_QUALITY = 0.6;
/** Painted over password fields: one flat colour, so nothing of the field shows through. */
const MASK_COLOUR = '#808080';
const HIGHLIGHT_COLOUR = '#f97316';

/**
 * The chrome.* side of task recordings (src/tools/browser/task-frames/task-recorder.ts): the
 * picture (the one the action requested when it took one, else a capture of the visible tab), password
 * fields painted over from the boxes the page's content script reports, the acted element
 * outlined, the frame stored beside the thread (store.frames, with its budget).
 */
export function createTaskRecorder(
  host: BrowserHost,
  store: DexieStore,
  secrets: SecretSource | undefined,
): TaskRecorder {
  const pages = new PageClient(host);
  return new TaskRecorder({
    async picture(shot) {
      const tab = await host.getTab(shot.tabId).catch(() => undefined);
      if (!tab?.active || !/^https?:|^file:/.test(tab.url)) return null;
      const boxes = await pages
        .call<SecretBoxesResult>(shot.tabId, 0, { op: 'secret_boxes' }, { timeoutMs: 1500 })
        .catch(() => null);
      // Without the page's answer the masks are unknown: no frame rather than an unmasked one.
      if (!boxes) return null;
      if (shot.image) return draw(shot.image, boxes, shot);
      const image = await host.captureVisibleTab(tab.windowId, {
        format: 'jpeg',
        quality: FRAME_QUALITY * 100,
        maxWidth: FRAME_MAX_WIDTH,
        background: true,
      });
      // captureVisibleTab takes whatever tab is in front when it runs: had the user switched tabs
      // (or the page navigated) while the masks were read or a capture slot awaited, the picture
      // would be another page, unmasked. Such a frame is dropped.
      const after = await host.getTab(shot.tabId).catch(() => undefined);
      if (!after?.active || after.windowId !== tab.windowId || after.url !== tab.url) return null;
      return draw(image, boxes, shot);
    },
    save: async (frame) => {
      await store.frames.add(frame);
    },
    async isPrivate(url) {
      let origin: string;
      try {
        origin = new URL(url).origin;
      } catch {
        return false;
      }
      const list = (await store.settings.get().catch(() => undefined))?.privateSites ?? [];
      return list.includes(origin);
    },
    knownSecrets: () => knownValues(secrets).catch(() => []),
    now: () => Date.now(),
    newId: () => `frm_${crypto.randomUUID()}`,
    log: (msg) => console.warn(`[keel] ${msg}`),
  });
}

async function draw(
  image: CapturedImage,
  page: SecretBoxesResult,
  shot: FrameShot,
): Promise<FramePicture> {
  const bytes = Uint8Array.from(atob(image.dataBase64), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: image.mimeType }));
  try {
    const scale = Math.min(FRAME_MAX_WIDTH, bitmap.width) / bitmap.width;
    const width = Math.round(bitmap.width * scale);
    const height = Math.round(bitmap.height * scale);
    const canvas = new OffscreenCanvas(width, height);
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas');
    g.drawImage(bitmap, 0, 0, width, height);
    // Page CSS px → image px: the capture is the viewport, scaled.
    const k = page.width > 0 ? width / page.width : 1;
    const px = (b: { x: number; y: number; width: number; height: number }) => ({
      x: Math.round(b.x * k),
      y: Math.round(b.y * k),
      width: Math.round(b.width * k),
      height: Math.round(b.height * k),
    });
    const highlight = shot.highlight ? px(shot.highlight) : undefined;
    if (highlight) {
      g.strokeStyle = HIGHLIGHT_COLOUR;
      g.lineWidth = 3;
      g.strokeRect(highlight.x - 2, highlight.y - 2, highlight.width + 4, highlight.height + 4);
    }
    // Masks last: nothing (not even the outline of a typed-into field) is drawn over them.
    g.fillStyle = MASK_COLOUR;
    for (const b of page.boxes) {
      const r = px(b);
      // A margin: a scaled box must cover the field's last pixel row too.
      g.fillRect(r.x - 2, r.y - 2, r.width + 4, r.height + 4);
    }
    const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: FRAME_QUALITY });
    return {
      mimeType: 'image/jpeg',
      bytes: new Uint8Array(await blob.arrayBuffer()),
      width,
      height,
      ...(highlight ? { highlight } : {}),
    };
  } finally {
    bitmap.close();
  }
}
