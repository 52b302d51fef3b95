import type { ReplyPlan, ScriptedStop, ScriptedUsage } from './model-script';
import { sseFrame } from './wire';
import type { StreamRenderer, WireContext, WireFormat } from './wire';

/**
 * Anthropic Messages (`POST /v1/messages`), shaped after test/fixtures/sse/anthropic (a01–a16):
 * message_start, a ping, one content block per thinking / text / tool_use run (thinking closes with
 * a signature_delta; tool input starts with an empty input_json_delta, as recorded), message_delta
 * with the stop reason and usage, message_stop.
 */

const STOP: Record<ScriptedStop, string> = {
  end: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  // The Messages API has no content filter stop; a refusal is how it declines.
  content_filter: 'refusal',
  refusal: 'refusal',
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function wireUsage(u: ScriptedUsage) {
  return {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens,
  };
}

function signature(ctx: WireContext): string {
  return Buffer.from(`keel-thinking-signature-${ctx.seq}`).toString('base64');
}

function stream(plan: ReplyPlan, ctx: WireContext): StreamRenderer {
  const frame = (data: { type: string; [field: string]: unknown }) => sseFrame(data.type, data);
  let open: { index: number; kind: 'thinking' | 'text' | 'tool' } | undefined;
  let nextIndex = 0;

  const closeBlock = (): string[] => {
    if (!open) return [];
    const { index, kind } = open;
    open = undefined;
    const frames: string[] = [];
    if (kind === 'thinking') {
      const delta = { type: 'signature_delta', signature: signature(ctx) };
      frames.push(frame({ type: 'content_block_delta', index, delta }));
    }
    frames.push(frame({ type: 'content_block_stop', index }));
    return frames;
  };
  const startBlock = (kind: 'thinking' | 'text' | 'tool', contentBlock: object): string[] => {
    const frames = closeBlock();
    open = { index: nextIndex++, kind };
    frames.push(
      frame({ type: 'content_block_start', index: open.index, content_block: contentBlock }),
    );
    return frames;
  };
  const delta = (d: object) => frame({ type: 'content_block_delta', index: open!.index, delta: d });

  return {
    open: () => [
      frame({
        type: 'message_start',
        message: {
          id: `msg_keel${ctx.seq}`,
          type: 'message',
          role: 'assistant',
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...wireUsage(plan.usage), output_tokens: 1, service_tier: 'standard' },
        },
      }),
      frame({ type: 'ping' }),
    ],
    part(p) {
      switch (p.kind) {
        case 'thinking': {
          const frames =
            open?.kind === 'thinking'
              ? []
              : startBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          return [...frames, delta({ type: 'thinking_delta', thinking: p.text })];
        }
        case 'text': {
          const frames =
            open?.kind === 'text' ? [] : startBlock('text', { type: 'text', text: '' });
          return [...frames, delta({ type: 'text_delta', text: p.text })];
        }
        case 'tool_start':
          return [
            ...startBlock('tool', { type: 'tool_use', id: p.id, name: p.name, input: {} }),
            delta({ type: 'input_json_delta', partial_json: '' }),
          ];
        case 'tool_args':
          return [delta({ type: 'input_json_delta', partial_json: p.fragment })];
        case 'tool_end':
          return closeBlock();
      }
    },
    close: () => [
      ...closeBlock(),
      frame({
        type: 'message_delta',
        delta: { stop_reason: STOP[plan.stop], stop_sequence: null },
        usage: wireUsage(plan.usage),
      }),
      frame({ type: 'message_stop' }),
    ],
    // The documented in-stream error shape (INDEX.md: no recording of it exists).
    error: (message) => [frame({ type: 'error', error: { type: 'overloaded_error', message } })],
  };
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

function message(plan: ReplyPlan, ctx: WireContext): unknown {
  const content: object[] = [];
  if (plan.thinking)
    content.push({ type: 'thinking', thinking: plan.thinking, signature: signature(ctx) });
  if (plan.text) content.push({ type: 'text', text: plan.text });
  for (const c of plan.toolCalls)
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: parseArgs(c.args) });
  return {
    id: `msg_keel${ctx.seq}`,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: STOP[plan.stop],
    stop_sequence: null,
    usage: wireUsage(plan.usage),
  };
}

export const anthropicWire: WireFormat = {
  api: 'anthropic',
  toolIdPrefix: 'toolu_keel',
  stream,
  message,
  errorBody: (status, msg) => ({
    type: 'error',
    error: {
      type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
      message: msg,
    },
    request_id: 'req_keel',
  }),
};
