import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import type { Usage } from '../../protocol';
import { asRecord, providerError } from '../errors';
import { stopEvent } from '../events';
import type { StreamNormalizer } from '../run-attempt';
import type { NormalizedStopReason, StreamEvent } from '../types';

/**
 * Chat Completions stream (OpenAI and compatible servers) → normalized events.
 *
 * - Tool calls are assembled by their `index`; a server that omits it gets the position in the
 *   chunk, and a new `id` at a known index starts a new call (some compatible servers reuse index 0).
 * - Reasoning arrives as `delta.reasoning_content` (DeepSeek) or `delta.reasoning` (Groq, Ollama,
 *   OpenRouter, vLLM). Only `reasoning_content` is closed into a `thinking_block` for replay:
 *   DeepSeek requires it back on later requests; the `reasoning` servers do not take it as input.
 * - `delta.refusal` text is shown as text and turns a `stop` into `refusal`.
 * - The stop event waits for the end of the stream, because usage arrives in a chunk after the
 *   finish_reason (stream_options.include_usage).
 */

/** Fields compatible servers add to the delta. */
type CompatDelta = ChatCompletionChunk.Choice.Delta & {
  reasoning_content?: unknown;
  reasoning?: unknown;
};

const FINISH_REASONS: Record<string, NormalizedStopReason> = {
  stop: 'end',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'content_filter',
};

function toUsage(raw: unknown): Usage | undefined {
  const usage = asRecord(raw);
  if (!usage || typeof usage.prompt_tokens !== 'number') return undefined;
  const out: Usage = {
    inputTokens: usage.prompt_tokens,
    outputTokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0,
  };
  const cached =
    asRecord(usage.prompt_tokens_details)?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  if (typeof cached === 'number') out.cacheReadTokens = cached;
  const reasoning = asRecord(usage.completion_tokens_details)?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  return out;
}

interface OpenCall {
  index: number;
  id: string;
  open: boolean;
}

export function createChatNormalizer(): StreamNormalizer<ChatCompletionChunk> {
  const calls = new Map<number, OpenCall>();
  let nextIndex = 0;
  let finishReason: string | null = null;
  let sawRefusal = false;
  let reasoningContent = '';
  let reasoningClosed = false;

  const closeReasoning = (): StreamEvent[] => {
    if (reasoningClosed || reasoningContent === '') return [];
    reasoningClosed = true;
    return [{ type: 'thinking_block', part: { text: reasoningContent, providerKind: 'openai' } }];
  };

  const closeCalls = (): StreamEvent[] =>
    [...calls.values()]
      .filter((call) => call.open)
      .map((call): StreamEvent => {
        call.open = false;
        return { type: 'tool_call_end', index: call.index };
      });

  const toolCallEvents = (delta: CompatDelta): StreamEvent[] => {
    const out: StreamEvent[] = [];
    (delta.tool_calls ?? []).forEach((toolCall, position) => {
      const key = typeof toolCall.index === 'number' ? toolCall.index : position;
      let call = calls.get(key);
      if (call && toolCall.id && toolCall.id !== call.id) {
        if (call.open) out.push({ type: 'tool_call_end', index: call.index });
        call.open = false;
        call = undefined;
      }
      if (!call) {
        const index = nextIndex++;
        call = { index, id: toolCall.id || `call_${index}`, open: true };
        calls.set(key, call);
        out.push({
          type: 'tool_call_start',
          index,
          id: call.id,
          name: toolCall.function?.name ?? '',
        });
      }
      const fragment = toolCall.function?.arguments;
      if (fragment)
        out.push({ type: 'tool_call_delta', index: call.index, argsFragment: fragment });
    });
    return out;
  };

  return {
    push(chunk) {
      const out: StreamEvent[] = [];
      const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
      const delta: CompatDelta | undefined = choice?.delta;
      if (delta) {
        if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
          reasoningContent += delta.reasoning_content;
          out.push({ type: 'thinking_delta', text: delta.reasoning_content });
        }
        if (typeof delta.reasoning === 'string' && delta.reasoning !== '') {
          out.push({ type: 'thinking_delta', text: delta.reasoning });
        }
        if (typeof delta.content === 'string' && delta.content !== '') {
          out.push(...closeReasoning(), { type: 'text_delta', text: delta.content });
        }
        if (typeof delta.refusal === 'string' && delta.refusal !== '') {
          sawRefusal = true;
          out.push(...closeReasoning(), { type: 'text_delta', text: delta.refusal });
        }
        if (delta.tool_calls && delta.tool_calls.length > 0) {
          out.push(...closeReasoning(), ...toolCallEvents(delta));
        }
      }
      if (choice?.finish_reason) {
        finishReason = choice.finish_reason;
        out.push(...closeReasoning(), ...closeCalls());
      }
      const usage = toUsage(chunk.usage);
      if (usage) out.push({ type: 'usage', usage });
      return out;
    },
    end() {
      if (finishReason === null) {
        const message = 'The connection closed before the message was complete.';
        return [{ type: 'error', error: providerError('network', message) }];
      }
      let reason: NormalizedStopReason = FINISH_REASONS[finishReason] ?? 'end';
      // Some compatible servers (older Ollama, vLLM) finish a tool-calling message with "stop".
      if (reason === 'end' && calls.size > 0) reason = 'tool_use';
      if (reason === 'end' && sawRefusal) reason = 'refusal';
      return [...closeReasoning(), ...closeCalls(), stopEvent(reason, finishReason)];
    },
  };
}
