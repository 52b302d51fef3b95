import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ThinkingPart, Usage } from '../../protocol';
import { asRecord, httpFailureToError, providerError } from '../errors';
import { stopEvent } from '../events';
import type { StreamNormalizer } from '../run-attempt';
import type { NormalizedStopReason, StreamEvent } from '../types';

/**
 * Responses API stream → normalized events.
 *
 * - Function calls are keyed by item id (falling back to output_index) and numbered densely in
 *   the order they appear; `call_id` is the id the engine sees (it is what function_call_output
 *   refers to).
 * - Reasoning: summary text (and the raw `reasoning_text` of open-weight models) streams as
 *   thinking deltas, parts separated by a blank line; when the reasoning item is done it becomes a
 *   `thinking_block` with its item id and encrypted content (the final values, which differ from
 *   those in output_item.added) for replay.
 * - Terminal: response.completed → end / tool_use; response.incomplete → max_tokens /
 *   content_filter; response.failed and `error` → error.
 */

interface OpenCall {
  index: number;
  open: boolean;
  sawDelta: boolean;
}

interface ReasoningState {
  parts: string[];
  lastSummaryIndex: number;
}

function toUsage(raw: unknown): Usage | undefined {
  const usage = asRecord(raw);
  if (!usage || typeof usage.input_tokens !== 'number') return undefined;
  const out: Usage = {
    inputTokens: usage.input_tokens,
    outputTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
  };
  const cached = asRecord(usage.input_tokens_details)?.cached_tokens;
  if (typeof cached === 'number') out.cacheReadTokens = cached;
  const reasoning = asRecord(usage.output_tokens_details)?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  return out;
}

const INCOMPLETE_REASONS: Record<string, NormalizedStopReason> = {
  max_output_tokens: 'max_tokens',
  content_filter: 'content_filter',
};

export function createResponsesNormalizer(): StreamNormalizer<ResponseStreamEvent> {
  const calls = new Map<string, OpenCall>();
  const reasoning = new Map<string, ReasoningState>();
  let nextIndex = 0;
  let sawRefusal = false;

  const callKey = (itemId: string | undefined, outputIndex: number | undefined) =>
    itemId ?? `#${outputIndex ?? -1}`;

  const findCall = (
    itemId: string | undefined,
    outputIndex: number | undefined,
  ): OpenCall | undefined =>
    calls.get(callKey(itemId, undefined)) ?? calls.get(callKey(undefined, outputIndex));

  const endCall = (call: OpenCall | undefined, fullArgs?: string): StreamEvent[] => {
    if (!call || !call.open) return [];
    call.open = false;
    const out: StreamEvent[] = [];
    // A server that streams no deltas still reports the whole arguments at the end.
    if (!call.sawDelta && fullArgs) {
      out.push({ type: 'tool_call_delta', index: call.index, argsFragment: fullArgs });
    }
    out.push({ type: 'tool_call_end', index: call.index });
    return out;
  };

  const reasoningDelta = (itemId: string, summaryIndex: number, text: string): StreamEvent[] => {
    const state = reasoning.get(itemId) ?? { parts: [], lastSummaryIndex: -1 };
    reasoning.set(itemId, state);
    const out: StreamEvent[] = [];
    if (summaryIndex !== state.lastSummaryIndex) {
      if (state.lastSummaryIndex >= 0) out.push({ type: 'thinking_delta', text: '\n\n' });
      state.lastSummaryIndex = summaryIndex;
    }
    state.parts[summaryIndex] = (state.parts[summaryIndex] ?? '') + text;
    if (text !== '') out.push({ type: 'thinking_delta', text });
    return out;
  };

  const terminal = (
    response: Response | undefined,
    reason: NormalizedStopReason,
    providerReason: string,
  ): StreamEvent[] => {
    const out: StreamEvent[] = [];
    for (const call of calls.values()) out.push(...endCall(call));
    const usage = toUsage(response?.usage);
    if (usage) out.push({ type: 'usage', usage });
    out.push(stopEvent(reason, providerReason));
    return out;
  };

  return {
    push(event) {
      switch (event.type) {
        case 'response.output_item.added': {
          const item = event.item;
          if (item.type !== 'function_call') return [];
          const index = nextIndex++;
          calls.set(callKey(item.id, event.output_index), { index, open: true, sawDelta: false });
          return [{ type: 'tool_call_start', index, id: item.call_id, name: item.name }];
        }
        case 'response.function_call_arguments.delta': {
          const call = findCall(event.item_id, event.output_index);
          if (!call || !call.open || !event.delta) return [];
          call.sawDelta = true;
          return [{ type: 'tool_call_delta', index: call.index, argsFragment: event.delta }];
        }
        case 'response.function_call_arguments.done':
          return endCall(findCall(event.item_id, event.output_index), event.arguments);
        case 'response.output_text.delta':
          return event.delta ? [{ type: 'text_delta', text: event.delta }] : [];
        case 'response.refusal.delta':
          sawRefusal = true;
          return event.delta ? [{ type: 'text_delta', text: event.delta }] : [];
        case 'response.reasoning_summary_text.delta':
          return reasoningDelta(event.item_id, event.summary_index, event.delta);
        case 'response.reasoning_text.delta':
          return reasoningDelta(event.item_id, event.content_index, event.delta);
        case 'response.output_item.done': {
          const item = event.item;
          if (item.type === 'function_call') {
            return endCall(findCall(item.id, event.output_index), item.arguments);
          }
          if (item.type !== 'reasoning') return [];
          const streamed = reasoning.get(item.id)?.parts ?? [];
          const fromItem = (item.summary ?? []).map((part) => part.text);
          const fromContent = (item.content ?? []).map((part) => part.text);
          const texts =
            fromItem.length > 0 ? fromItem : fromContent.length > 0 ? fromContent : streamed;
          const part: ThinkingPart = {
            text: texts.join('\n\n'),
            itemId: item.id,
            providerKind: 'openai-responses',
          };
          if (typeof item.encrypted_content === 'string')
            part.encryptedContent = item.encrypted_content;
          return [{ type: 'thinking_block', part }];
        }
        case 'response.completed': {
          const reason: NormalizedStopReason =
            calls.size > 0 ? 'tool_use' : sawRefusal ? 'refusal' : 'end';
          return terminal(event.response, reason, event.response?.status ?? 'completed');
        }
        case 'response.incomplete': {
          const why = event.response?.incomplete_details?.reason ?? 'incomplete';
          return terminal(event.response, INCOMPLETE_REASONS[why] ?? 'max_tokens', why);
        }
        case 'response.failed': {
          const failure = event.response?.error;
          return [
            {
              type: 'error',
              error: httpFailureToError({ body: failure, fallbackMessage: 'The response failed.' }),
            },
          ];
        }
        case 'error':
          return [
            {
              type: 'error',
              error: httpFailureToError({ body: event, fallbackMessage: 'Stream error.' }),
            },
          ];
        default:
          return [];
      }
    },
    end() {
      const message = 'The connection closed before the response was complete.';
      return [{ type: 'error', error: providerError('network', message) }];
    },
  };
}
