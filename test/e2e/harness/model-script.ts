/**
 * What a test tells the scripted model server to answer, and the wire-neutral plan every API's
 * renderer turns into its own stream. See docs/testing.md for the format with examples.
 */

/** Which API a request came in on (chosen by its path). */
export type ApiKind = 'openai-chat' | 'anthropic' | 'openai-responses';

/**
 * Why the scripted message ends. Each API spells it its own way (`stop` / `end_turn` /
 * `completed`, `length` / `max_tokens` / `incomplete` …). Default: `tool_use` when the reply has
 * tool calls, else `end`.
 */
export type ScriptedStop = 'end' | 'tool_use' | 'max_tokens' | 'content_filter' | 'refusal';

/**
 * Token counts for the reply, in Anthropic's terms: `inputTokens` excludes cached input. The
 * OpenAI renderers report `prompt_tokens` / `input_tokens` = inputTokens + cacheReadTokens, with
 * the cached part in `cached_tokens`, and count reasoning inside the output tokens.
 */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** Serialized with JSON.stringify; a string is sent verbatim (e.g. truncated or malformed JSON). */
  args: unknown;
  /** Sent verbatim when given, including '' (to test id repair); generated otherwise. */
  id?: string;
}

export interface ScriptedReply {
  text?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  stop?: ScriptedStop;
  usage?: ScriptedUsage;
  /** Characters per text / thinking delta. Default: one delta per word (with its trailing space). */
  chunkChars?: number;

  // ---- fault injection ----
  /** Answer with this HTTP status and the API's JSON error body instead of a stream. */
  httpStatus?: number;
  /** With httpStatus: a `retry-after` header, in seconds. */
  retryAfter?: number;
  /** With httpStatus: the error message. */
  errorMessage?: string;
  /**
   * End the stream with the API's in-stream error event instead of finishing it. `true` puts the
   * error after the first content delta; `afterDeltas` chooses how many deltas go out first.
   */
  midStreamError?: boolean | { afterDeltas?: number; message?: string };
  /**
   * Pause once for this long mid-stream, after `hangAfterDeltas` deltas (default 1; 0 = right
   * after the opening events; more than the reply has = just before its end). A non-streaming
   * reply waits this long before answering.
   */
  hangMs?: number;
  hangAfterDeltas?: number;
  /** Pause before every delta. */
  delayMs?: number;
}

/** What the server recorded about one model request. */
export interface RecordedRequest {
  /** 0-based position among all model requests this server received. */
  index: number;
  api: ApiKind;
  method: string;
  path: string;
  /** Lower-cased header names; `authorization` and `x-api-key` are left out. */
  headers: Record<string, string>;
  /** How the client sent its key, if it did. */
  auth: 'bearer' | 'x-api-key' | 'none';
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The body as received, handy for `toContain` checks. */
  raw: string;
  stream: boolean;
  /** The HTTP status answered (0 until headers are sent). */
  status: number;
  /** The client went away before the reply was complete (e.g. the service worker was stopped). */
  aborted: boolean;
}

/** One entry of a script: a fixed reply or one computed from the request. */
export type ScriptStep =
  | ScriptedReply
  | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

/** One content delta, in stream order. Tool calls are emitted one after the other. */
export type StreamPart =
  | { kind: 'thinking'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool_start'; index: number; id: string; name: string }
  | { kind: 'tool_args'; index: number; fragment: string }
  | { kind: 'tool_end'; index: number };

export interface ReplyPlan {
  thinking: string;
  text: string;
  toolCalls: { id: string; name: string; args: string }[];
  stop: ScriptedStop;
  usage: ScriptedUsage;
  parts: StreamPart[];
}

/** Deltas are what faults count: text, thinking and tool-argument fragments. */
export function isDelta(part: StreamPart): boolean {
  return part.kind === 'text' || part.kind === 'thinking' || part.kind === 'tool_args';
}

function splitText(text: string, chunkChars?: number): string[] {
  if (!text) return [];
  if (chunkChars && chunkChars > 0) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += chunkChars) out.push(text.slice(i, i + chunkChars));
    return out;
  }
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

const ARGS_FRAGMENT_CHARS = 7;

/**
 * Turns a reply into the content every renderer streams. `idPrefix` makes generated tool-call ids
 * unique per request and recognisable per API (`call_`, `toolu_`).
 */
export function planReply(reply: ScriptedReply, idPrefix: string, inputChars: number): ReplyPlan {
  const thinking = reply.thinking ?? '';
  const text = reply.text ?? '';
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `${idPrefix}${i}`,
    name: call.name,
    args: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}),
  }));
  const parts: StreamPart[] = [];
  for (const piece of splitText(thinking, reply.chunkChars))
    parts.push({ kind: 'thinking', text: piece });
  for (const piece of splitText(text, reply.chunkChars)) parts.push({ kind: 'text', text: piece });
  toolCalls.forEach((call, index) => {
    parts.push({ kind: 'tool_start', index, id: call.id, name: call.name });
    for (let i = 0; i < call.args.length; i += ARGS_FRAGMENT_CHARS) {
      parts.push({
        kind: 'tool_args',
        index,
        fragment: call.args.slice(i, i + ARGS_FRAGMENT_CHARS),
      });
    }
    parts.push({ kind: 'tool_end', index });
  });
  const outputChars =
    thinking.length +
    text.length +
    toolCalls.reduce((n, c) => n + c.name.length + c.args.length, 0);
  const usage = reply.usage ?? {
    inputTokens: Math.max(1, Math.ceil(inputChars / 4)),
    outputTokens: Math.max(1, Math.ceil(outputChars / 4)),
  };
  return {
    thinking,
    text,
    toolCalls,
    stop: reply.stop ?? (toolCalls.length ? 'tool_use' : 'end'),
    usage,
    parts,
  };
}
