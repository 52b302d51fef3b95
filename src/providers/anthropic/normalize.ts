import type {
  RawMessageStreamEvent,
  StopReason,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Usage } from '../../protocol';
import { providerError } from '../errors';
import { stopEvent } from '../events';
import type { StreamNormalizer } from '../run-attempt';
import type { NormalizedStopReason, StreamEvent } from '../types';

/**
 * Anthropic Messages stream → normalized events.
 *
 * Content blocks are keyed by the API's block index; tool calls get our own dense index (0, 1, …) in
 * the order they start, the same numbering the other adapters use. Tolerated oddities, each seen in
 * a recorded stream: a repeated message_start (a15) is ignored; a tool block never stopped before
 * max_tokens (a03) is closed when the message ends; server-tool blocks (a05: web_search) are not
 * calls for the engine and are skipped; usage in message_delta replaces message_start's (a13).
 */

type OpenBlock =
  | { kind: 'text' }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; index: number; sawFragment: boolean; initialInput: string }
  | { kind: 'ignored' };

const STOP_REASONS: Record<string, NormalizedStopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  pause_turn: 'end',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
};

export function mapAnthropicStopReason(reason: StopReason | string | null): NormalizedStopReason {
  return (reason && STOP_REASONS[reason]) || 'end';
}

interface UsageState {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  thinking?: number;
}

/** The usage fields both message_start and message_delta may carry (each may be null or absent). */
interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

const CLOSED_EARLY = 'The connection closed before the message was complete.';

const num = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * Our `inputTokens` is the whole prompt: Anthropic reports cache reads and writes apart from
 * `input_tokens`, OpenAI includes them in `prompt_tokens`; cost.ts prices the parts.
 */
function toUsage(state: UsageState): Usage {
  const usage: Usage = {
    inputTokens: state.input + (state.cacheRead ?? 0) + (state.cacheWrite ?? 0),
    outputTokens: state.output,
  };
  if (state.cacheRead !== undefined) usage.cacheReadTokens = state.cacheRead;
  if (state.cacheWrite !== undefined) usage.cacheWriteTokens = state.cacheWrite;
  if (state.thinking !== undefined) usage.reasoningTokens = state.thinking;
  return usage;
}

export function createAnthropicNormalizer(): StreamNormalizer<RawMessageStreamEvent> {
  const blocks = new Map<number, OpenBlock>();
  let started = false;
  let nextToolIndex = 0;
  let stopReason: string | null = null;
  let usage: UsageState | undefined;

  const mergeUsage = (raw: AnthropicUsageLike | null | undefined): StreamEvent[] => {
    if (!raw) return [];
    const next: UsageState = { ...(usage ?? { input: 0, output: 0 }) };
    if (num(raw.input_tokens)) next.input = raw.input_tokens;
    if (num(raw.output_tokens)) next.output = raw.output_tokens;
    if (num(raw.cache_read_input_tokens)) next.cacheRead = raw.cache_read_input_tokens;
    if (num(raw.cache_creation_input_tokens)) next.cacheWrite = raw.cache_creation_input_tokens;
    const thinking = raw.output_tokens_details?.thinking_tokens;
    if (num(thinking)) next.thinking = thinking;
    usage = next;
    return [{ type: 'usage', usage: toUsage(next) }];
  };

  const closeBlock = (index: number): StreamEvent[] => {
    const block = blocks.get(index);
    blocks.delete(index);
    if (!block) return [];
    switch (block.kind) {
      case 'thinking':
        return [
          {
            type: 'thinking_block',
            part: { text: block.text, signature: block.signature, providerKind: 'anthropic' },
          },
        ];
      case 'redacted':
        return [
          {
            type: 'thinking_block',
            part: { text: '', redactedData: block.data, providerKind: 'anthropic' },
          },
        ];
      case 'tool': {
        const out: StreamEvent[] = [];
        // Some proxies put the whole input in content_block_start and stream no fragments.
        if (!block.sawFragment && block.initialInput !== '') {
          out.push({
            type: 'tool_call_delta',
            index: block.index,
            argsFragment: block.initialInput,
          });
        }
        out.push({ type: 'tool_call_end', index: block.index });
        return out;
      }
      default:
        return [];
    }
  };

  const closeAll = (): StreamEvent[] =>
    [...blocks.keys()].sort((a, b) => a - b).flatMap(closeBlock);

  const finish = (): StreamEvent[] => [
    ...closeAll(),
    stopEvent(mapAnthropicStopReason(stopReason), stopReason),
  ];

  return {
    push(event) {
      switch (event.type) {
        case 'message_start':
          if (started) return [];
          started = true;
          return mergeUsage(event.message?.usage);

        case 'content_block_start': {
          const block = event.content_block;
          if (block.type === 'text') {
            blocks.set(event.index, { kind: 'text' });
            return block.text ? [{ type: 'text_delta', text: block.text }] : [];
          }
          if (block.type === 'thinking') {
            const text = block.thinking ?? '';
            blocks.set(event.index, { kind: 'thinking', text, signature: block.signature ?? '' });
            return block.thinking ? [{ type: 'thinking_delta', text: block.thinking }] : [];
          }
          if (block.type === 'redacted_thinking') {
            blocks.set(event.index, { kind: 'redacted', data: block.data });
            return [];
          }
          if (block.type === 'tool_use') {
            const index = nextToolIndex++;
            const input = block.input;
            const hasInput = input && typeof input === 'object' && Object.keys(input).length > 0;
            const initialInput = hasInput ? JSON.stringify(input) : '';
            blocks.set(event.index, { kind: 'tool', index, sawFragment: false, initialInput });
            return [{ type: 'tool_call_start', index, id: block.id, name: block.name }];
          }
          blocks.set(event.index, { kind: 'ignored' });
          return [];
        }

        case 'content_block_delta': {
          const block = blocks.get(event.index);
          const delta = event.delta;
          if (!block) return [];
          if (delta.type === 'text_delta' && block.kind === 'text') {
            return delta.text ? [{ type: 'text_delta', text: delta.text }] : [];
          }
          if (delta.type === 'thinking_delta' && block.kind === 'thinking') {
            block.text += delta.thinking;
            return delta.thinking ? [{ type: 'thinking_delta', text: delta.thinking }] : [];
          }
          if (delta.type === 'signature_delta' && block.kind === 'thinking') {
            block.signature += delta.signature;
            return [];
          }
          if (delta.type === 'input_json_delta' && block.kind === 'tool') {
            if (!delta.partial_json) return [];
            block.sawFragment = true;
            return [
              { type: 'tool_call_delta', index: block.index, argsFragment: delta.partial_json },
            ];
          }
          return [];
        }

        case 'content_block_stop':
          return closeBlock(event.index);

        case 'message_delta': {
          // The message's content is over once it has a stop reason: close what a truncated
          // message (max_tokens mid tool JSON) left open, before the final usage.
          if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
          return [...(stopReason !== null ? closeAll() : []), ...mergeUsage(event.usage)];
        }

        case 'message_stop':
          return finish();

        default:
          return [];
      }
    },
    end() {
      // The connection closed after message_delta but before message_stop: the message is complete.
      if (stopReason !== null) return finish();
      return [{ type: 'error', error: providerError('network', CLOSED_EARLY) }];
    },
  };
}
