import type { ThinkingPart, Usage } from '../protocol';
import { abortedError, errorEvent, providerError } from './errors';
import { stopEvent } from './events';
import { guardStream } from './guard';
import { defaultSleep, streamWithRetry, type Random, type RetryPolicy, type Sleep } from './retry';
import type {
  NormalizedStopReason,
  Provider,
  ProviderError,
  ProviderErrorCode,
  ProviderRequest,
  StreamEvent,
} from './types';

/**
 * A Provider that plays a script, for engine tests (the "faux provider" of STYLE.md): no network,
 * deterministic, and it records every request it receives.
 */

export interface ScriptedToolCall {
  /** Defaults to `call_<n>` (n counts calls across the whole script). */
  id?: string;
  name: string;
  /** Serialized with JSON.stringify and streamed in `fragments` pieces. */
  args?: unknown;
  /** Sent verbatim instead of `args` (e.g. truncated or invalid JSON). */
  rawArgs?: string;
  /** Number of argument fragments (default 3). */
  fragments?: number;
}

export interface ScriptedReply {
  thinking?: string;
  /** Opaque fields of the thinking block (signature…); providerKind is 'scripted' by default. */
  thinkingPart?: Partial<ThinkingPart>;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: 'tool_use' when there are tool calls, else 'end'. */
  stop?: NormalizedStopReason;
  providerReason?: string;
  usage?: Usage;
  /** End with this error instead of a stop. */
  error?: {
    code: ProviderErrorCode;
    message?: string;
    retryable?: boolean;
    status?: number;
    retryAfterMs?: number;
  };
  /** With `error`: content events streamed first (default 0: the error comes before the first token). */
  failAfter?: number;
  /** Full control: these events are played as they are (nothing else of the reply is used). */
  events?: StreamEvent[];
}

export type ScriptEntry =
  | ScriptedReply
  | ((request: RecordedRequest, call: number) => ScriptedReply | Promise<ScriptedReply>);

/** A request as recorded: deep-cloned, without its AbortSignal. */
export type RecordedRequest = Omit<ProviderRequest, 'signal'>;

export interface ScriptedProviderOptions {
  id?: string;
  /** Pause before each streamed event (through `sleep`), to test interrupts mid-stream. */
  tokenDelayMs?: number;
  sleep?: Sleep;
  /** Retry before the first token like the real providers (each attempt consumes an entry). */
  retry?: Partial<RetryPolicy>;
  random?: Random;
}

function tokens(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

function fragments(text: string, count: number): string[] {
  if (text === '') return [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export class ScriptedProvider implements Provider {
  readonly id: string;
  readonly kind = 'scripted' as const;
  /** Every request received, in order, deep-cloned at call time. */
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptEntry[];
  private readonly options: ScriptedProviderOptions;
  private nextEntry = 0;
  private toolCallCount = 0;

  constructor(script: ScriptEntry[] = [], options: ScriptedProviderOptions = {}) {
    this.script = [...script];
    this.options = options;
    this.id = options.id ?? 'scripted';
  }

  /** Appends entries to the script (e.g. from a test step). */
  push(...entries: ScriptEntry[]): void {
    this.script.push(...entries);
  }

  /** Entries not consumed yet. */
  get remaining(): number {
    return this.script.length - this.nextEntry;
  }

  stream(req: ProviderRequest): AsyncIterable<StreamEvent> {
    const { signal, ...rest } = req;
    const recorded = structuredClone(rest);
    this.requests.push(recorded);
    const attempt = () => this.play(recorded, signal);
    const source = this.options.retry
      ? streamWithRetry(attempt, {
          signal,
          policy: this.options.retry,
          sleep: this.options.sleep,
          random: this.options.random,
        })
      : attempt();
    return guardStream(source, { signal });
  }

  private async *play(request: RecordedRequest, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const call = this.nextEntry;
    const entry = this.script[call];
    if (entry === undefined) {
      yield errorEvent(
        providerError(
          'stream',
          `ScriptedProvider: the script is exhausted (${this.script.length} entries; ` +
            `no reply for call ${call + 1}).`,
          { retryable: false },
        ),
      );
      return;
    }
    this.nextEntry++;
    const reply = typeof entry === 'function' ? await entry(structuredClone(request), call) : entry;
    const sleep = this.options.sleep ?? defaultSleep;
    for (const event of this.eventsOf(reply)) {
      if (this.options.tokenDelayMs) await sleep(this.options.tokenDelayMs, signal);
      if (signal.aborted) {
        yield errorEvent(abortedError());
        return;
      }
      yield event;
    }
  }

  private eventsOf(reply: ScriptedReply): StreamEvent[] {
    if (reply.events) return reply.events;
    const content: StreamEvent[] = [];
    if (reply.thinking !== undefined || reply.thinkingPart) {
      const thinking = reply.thinking ?? '';
      for (const text of tokens(thinking)) content.push({ type: 'thinking_delta', text });
      content.push({
        type: 'thinking_block',
        part: { text: thinking, providerKind: 'scripted', ...reply.thinkingPart },
      });
    }
    for (const text of tokens(reply.text ?? '')) content.push({ type: 'text_delta', text });
    (reply.toolCalls ?? []).forEach((toolCall, index) => {
      const id = toolCall.id ?? `call_${++this.toolCallCount}`;
      content.push({ type: 'tool_call_start', index, id, name: toolCall.name });
      const args = toolCall.rawArgs ?? JSON.stringify(toolCall.args ?? {});
      for (const argsFragment of fragments(args, toolCall.fragments ?? 3)) {
        content.push({ type: 'tool_call_delta', index, argsFragment });
      }
      content.push({ type: 'tool_call_end', index });
    });

    if (reply.error) {
      const { code, message, ...extra } = reply.error;
      const error: ProviderError = providerError(code, message ?? `Scripted ${code} error.`, extra);
      return [...content.slice(0, reply.failAfter ?? 0), errorEvent(error)];
    }
    const out = [...content];
    if (reply.usage) out.push({ type: 'usage', usage: reply.usage });
    const reason = reply.stop ?? ((reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end');
    out.push(stopEvent(reason, reply.providerReason));
    return out;
  }
}
