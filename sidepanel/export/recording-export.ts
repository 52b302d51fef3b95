/**
 * A task's recording as a file (issue 30): every frame drawn on one canvas with its one-line
 * summary in a band below, then encoded by a library — an animated GIF (gifenc) or a WebM video
 * (mediabunny over WebCodecs' VP8 encoder). Nothing leaves the machine.
 */
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import { BufferTarget, CanvasSource, Output, QUALITY_MEDIUM, WebMOutputFormat } from 'mediabunny';

/** One frame as `thread.recording` returns it. */
export interface RecordingFrame {
  frameId: string;
  runId: string;
  toolCallId: string;
  tool: string;
  at: number;
  summary: string;
  mimeType: string;
  width: number;
  height: number;
  dataBase64: string;
}

/** How long each step shows in an export. */
export const FRAME_SECONDS = 1;
const CAPTION_PX = 24;

/** The latest task that has frames: its run's frames, oldest first (empty when none). */
export function latestTask(frames: readonly RecordingFrame[]): RecordingFrame[] {
  const last = frames.at(-1);
  return last ? frames.filter((f) => f.runId === last.runId) : [];
}

/** The export's size: the largest frame, even (video encoders want even sides), plus the band. */
export function canvasSize(frames: readonly RecordingFrame[]): { width: number; height: number } {
  const even = (n: number) => Math.max(2, Math.ceil(n / 2) * 2);
  return {
    width: even(Math.max(...frames.map((f) => f.width))),
    height: even(Math.max(...frames.map((f) => f.height)) + CAPTION_PX),
  };
}

async function bitmapOf(f: RecordingFrame): Promise<ImageBitmap> {
  const bytes = Uint8Array.from(atob(f.dataBase64), (c) => c.charCodeAt(0));
  return createImageBitmap(new Blob([bytes], { type: f.mimeType }));
}

/** Draw frame `f` with its caption on `g` (the whole canvas is repainted). */
async function paint(
  g: OffscreenCanvasRenderingContext2D,
  f: RecordingFrame,
  w: number,
  h: number,
) {
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, w, h);
  const bitmap = await bitmapOf(f);
  try {
    const area = h - CAPTION_PX;
    const k = Math.min(w / bitmap.width, area / bitmap.height);
    const dw = Math.round(bitmap.width * k);
    const dh = Math.round(bitmap.height * k);
    g.drawImage(bitmap, Math.round((w - dw) / 2), 0, dw, dh);
  } finally {
    bitmap.close();
  }
  g.fillStyle = '#111827';
  g.fillRect(0, h - CAPTION_PX, w, CAPTION_PX);
  g.fillStyle = '#ffffff';
  g.font = '13px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.fillText(f.summary, 8, h - CAPTION_PX / 2, w - 16);
}

function canvasFor(frames: readonly RecordingFrame[]) {
  const { width, height } = canvasSize(frames);
  const canvas = new OffscreenCanvas(width, height);
  const g = canvas.getContext('2d', { willReadFrequently: true });
  if (!g) throw new Error('no 2D canvas');
  return { canvas, g, width, height };
}

/** An animated GIF of the frames, one second each, looping. */
export async function recordingGif(frames: readonly RecordingFrame[]): Promise<Uint8Array> {
  if (!frames.length) throw new Error('no frames');
  const { g, width, height } = canvasFor(frames);
  const gif = GIFEncoder();
  for (const f of frames) {
    await paint(g, f, width, height);
    const rgba = g.getImageData(0, 0, width, height).data;
    const palette = quantize(rgba, 256);
    gif.writeFrame(applyPalette(rgba, palette), width, height, {
      palette,
      delay: FRAME_SECONDS * 1000,
    });
  }
  gif.finish();
  return gif.bytes();
}

/** A WebM (VP8) video of the frames, one second each. */
export async function recordingWebm(frames: readonly RecordingFrame[]): Promise<Uint8Array> {
  if (!frames.length) throw new Error('no frames');
  const { canvas, g, width, height } = canvasFor(frames);
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  const source = new CanvasSource(canvas, { codec: 'vp8', bitrate: QUALITY_MEDIUM });
  output.addVideoTrack(source, { frameRate: 1 / FRAME_SECONDS });
  await output.start();
  for (const [i, f] of frames.entries()) {
    await paint(g, f, width, height);
    await source.add(i * FRAME_SECONDS, FRAME_SECONDS);
  }
  await output.finalize();
  const buffer = output.target.buffer;
  if (!buffer) throw new Error('the video is empty');
  return new Uint8Array(buffer);
}

/** `keel-<title>-task.gif` / `.webm`, from the thread's export name. */
export function recordingFileName(base: string, ext: 'gif' | 'webm'): string {
  return `${base.replace(/\.(md|json)$/, '')}-task.${ext}`;
}
