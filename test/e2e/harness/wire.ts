import type { ApiKind, ReplyPlan, StreamPart } from './model-script';

/** What a renderer knows about the request it answers. */
export interface WireContext {
  /** The `model` of the request, echoed back like the real APIs do. */
  model: string;
  /** A per-request suffix for message / response / item ids. */
  seq: number;
  /** The parsed request body (e.g. Chat Completions reports usage only when asked to). */
  body: Record<string, unknown>;
}

/**
 * Turns one planned reply into SSE frames, in order: `open()` once, `part()` per stream part, then
 * either `close()` (a normal end) or `error()` (an in-stream failure; nothing follows it).
 */
export interface StreamRenderer {
  open(): string[];
  part(part: StreamPart): string[];
  close(): string[];
  error(message: string): string[];
}

export interface WireFormat {
  api: ApiKind;
  /** Prefix of generated tool-call ids. */
  toolIdPrefix: string;
  stream(plan: ReplyPlan, ctx: WireContext): StreamRenderer;
  /** The body of a non-streaming (`stream: false`) answer. */
  message(plan: ReplyPlan, ctx: WireContext): unknown;
  /** The JSON body the API sends with an HTTP error status. */
  errorBody(status: number, message: string): unknown;
}

/** One `text/event-stream` frame; `event` is omitted for Chat Completions' data-only frames. */
export function sseFrame(event: string | undefined, data: unknown): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

/** Seconds since the epoch, as the APIs report `created`. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
