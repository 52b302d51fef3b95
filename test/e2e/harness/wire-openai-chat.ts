import type { ReplyPlan, ScriptedStop, ScriptedUsage } from './model-script';
import { nowSeconds, sseFrame } from './wire';
import type { StreamRenderer, WireContext, WireFormat } from './wire';

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), shaped after the recorded streams in
 * test/fixtures/sse/openai (o01–o08): data-only frames, tool calls addressed by `index` with the id
 * and name in their first chunk, a finish chunk with an empty delta, a `choices: []` usage chunk
 * when `stream_options.include_usage` is set, and `data: [DONE]`. Thinking goes out as
 * `delta.reasoning_content`, the field DeepSeek-style compatible servers use (o07).
 */

const FINISH: Record<ScriptedStop, string> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  content_filter: 'content_filter',
  refusal: 'stop',
};

function wireUsage(u: ScriptedUsage) {
  const prompt = u.inputTokens + (u.cacheReadTokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoningTokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function errorType(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

function stream(plan: ReplyPlan, ctx: WireContext): StreamRenderer {
  const includeUsage =
    (ctx.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const id = `chatcmpl-keel${ctx.seq}`;
  const created = nowSeconds();
  // With include_usage every chunk carries `usage: null` until the final usage chunk.
  const chunk = (delta: object, finishReason: string | null = null) =>
    sseFrame(undefined, {
      id,
      object: 'chat.completion.chunk',
      created,
      model: ctx.model,
      system_fingerprint: 'fp_keel',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const textField = plan.stop === 'refusal' ? 'refusal' : 'content';
  return {
    open: () => [
      chunk({ role: 'assistant', content: plan.text && textField === 'content' ? '' : null }),
    ],
    part(p) {
      switch (p.kind) {
        case 'thinking':
          return [chunk({ reasoning_content: p.text })];
        case 'text':
          return [chunk({ [textField]: p.text })];
        case 'tool_start': {
          // The id and name come once, in the call's first chunk; later chunks carry only its index.
          const call = {
            index: p.index,
            id: p.id,
            type: 'function',
            function: { name: p.name, arguments: '' },
          };
          return [chunk({ tool_calls: [call] })];
        }
        case 'tool_args':
          return [chunk({ tool_calls: [{ index: p.index, function: { arguments: p.fragment } }] })];
        case 'tool_end':
          return [];
      }
    },
    close() {
      const frames = [chunk({}, FINISH[plan.stop])];
      if (includeUsage) {
        frames.push(
          sseFrame(undefined, {
            id,
            object: 'chat.completion.chunk',
            created,
            model: ctx.model,
            system_fingerprint: 'fp_keel',
            choices: [],
            usage: wireUsage(plan.usage),
          }),
        );
      }
      frames.push(sseFrame(undefined, '[DONE]'));
      return frames;
    },
    // As recorded from an OpenAI-compatible server (o06): an `error` event, then the body just ends.
    error: (message) => [
      sseFrame('error', { error: { message, type: 'server_error', code: 'server_error' } }),
    ],
  };
}

function message(plan: ReplyPlan, ctx: WireContext): unknown {
  const refusal = plan.stop === 'refusal';
  return {
    id: `chatcmpl-keel${ctx.seq}`,
    object: 'chat.completion',
    created: nowSeconds(),
    model: ctx.model,
    system_fingerprint: 'fp_keel',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: refusal || !plan.text ? null : plan.text,
          refusal: refusal ? plan.text : null,
          ...(plan.thinking ? { reasoning_content: plan.thinking } : {}),
          ...(plan.toolCalls.length
            ? {
                tool_calls: plan.toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.args },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: FINISH[plan.stop],
      },
    ],
    usage: wireUsage(plan.usage),
  };
}

export const openaiChatWire: WireFormat = {
  api: 'openai-chat',
  toolIdPrefix: 'call_keel',
  stream,
  message,
  errorBody: (status, msg) => ({ error: { message: msg, ...errorType(status), param: null } }),
};
