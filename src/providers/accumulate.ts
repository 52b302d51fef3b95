import type { ThinkingPart, Usage } from '../protocol';
import type { NormalizedStopReason, ProviderError, ProviderToolCall, StreamEvent } from './types';

/**
 * Folds a normalized stream into the assistant message it describes: what the engine commits after
 * a model call (and what tests compare). Tool calls are keyed by the stream's index, so parallel
 * calls whose fragments interleave are assembled correctly.
 */

export interface CollectedToolCall extends ProviderToolCall {
  index: number;
  /** The concatenated argument fragments as received. */
  argsText: string;
  /** Set when `argsText` is not a JSON object: `args` is then `{}` (ProviderToolCall's rule). */
  rawArgs?: string;
  /** Whether `tool_call_end` was seen. */
  ended: boolean;
}

export interface CollectedMessage {
  text: string;
  thinking: string;
  thinkingParts: ThinkingPart[];
  toolCalls: CollectedToolCall[];
  usage?: Usage;
  stop?: { reason: NormalizedStopReason; providerReason?: string };
  error?: ProviderError;
}

/** Arguments text → an object. Empty means no arguments; anything but a JSON object is kept raw. */
export function parseToolArgs(argsText: string): {
  args: { [key: string]: unknown };
  rawArgs?: string;
} {
  if (argsText.trim() === '') return { args: {} };
  try {
    const parsed: unknown = JSON.parse(argsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return { args: parsed as { [key: string]: unknown } };
    }
  } catch {
    // Truncated (max_tokens) or invalid JSON: the engine reports it to the model.
  }
  return { args: {}, rawArgs: argsText };
}

export function createStreamAccumulator() {
  const message: CollectedMessage = { text: '', thinking: '', thinkingParts: [], toolCalls: [] };
  const calls = new Map<number, CollectedToolCall>();

  return {
    push(event: StreamEvent): void {
      switch (event.type) {
        case 'text_delta':
          message.text += event.text;
          break;
        case 'thinking_delta':
          message.thinking += event.text;
          break;
        case 'thinking_block':
          message.thinkingParts.push(event.part);
          break;
        case 'tool_call_start': {
          const call: CollectedToolCall = {
            index: event.index,
            id: event.id,
            name: event.name,
            args: {},
            argsText: '',
            ended: false,
          };
          calls.set(event.index, call);
          message.toolCalls.push(call);
          break;
        }
        case 'tool_call_delta': {
          const call = calls.get(event.index);
          if (call) call.argsText += event.argsFragment;
          break;
        }
        case 'tool_call_end': {
          const call = calls.get(event.index);
          if (call) call.ended = true;
          break;
        }
        case 'usage':
          message.usage = event.usage;
          break;
        case 'stop':
          message.stop = event.providerReason
            ? { reason: event.reason, providerReason: event.providerReason }
            : { reason: event.reason };
          break;
        case 'error':
          message.error = event.error;
          break;
      }
    },
    result(): CollectedMessage {
      for (const call of message.toolCalls) {
        const parsed = parseToolArgs(call.argsText);
        call.args = parsed.args;
        if (parsed.rawArgs !== undefined) call.rawArgs = parsed.rawArgs;
        else delete call.rawArgs;
      }
      return message;
    },
  };
}

export async function collectStream(stream: AsyncIterable<StreamEvent>): Promise<CollectedMessage> {
  const accumulator = createStreamAccumulator();
  for await (const event of stream) accumulator.push(event);
  return accumulator.result();
}
