import type { ReplyPlan, ScriptedUsage } from './model-script';
import { nowSeconds, sseFrame } from './wire';
import type { StreamRenderer, WireContext, WireFormat } from './wire';

/**
 * OpenAI Responses (`POST /v1/responses`), shaped after test/fixtures/sse/openai (o10–o15): named
 * `response.*` events with a `sequence_number`; one output item per reasoning summary, message
 * and function call (added → deltas → done); `response.completed`, or `response.incomplete` with
 * `incomplete_details.reason` for max_tokens / content_filter.
 */

function wireUsage(u: ScriptedUsage) {
  const input = u.inputTokens + (u.cacheReadTokens ?? 0);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: input + u.outputTokens,
  };
}

function incompleteReason(plan: ReplyPlan): string | undefined {
  if (plan.stop === 'max_tokens') return 'max_output_tokens';
  if (plan.stop === 'content_filter') return 'content_filter';
  return undefined;
}

/** Item ids and shapes, shared by the streamed `output_item.*` events and the final response. */
const ids = {
  reasoning: (ctx: WireContext) => `rs_keel${ctx.seq}`,
  message: (ctx: WireContext) => `msg_keel${ctx.seq}`,
  call: (ctx: WireContext, index: number) => `fc_keel${ctx.seq}_${index}`,
};

function contentPart(plan: ReplyPlan, text: string) {
  return plan.stop === 'refusal'
    ? { type: 'refusal', refusal: text }
    : { type: 'output_text', annotations: [], logprobs: [], text };
}

function reasoningItem(ctx: WireContext, text: string | undefined) {
  return {
    id: ids.reasoning(ctx),
    type: 'reasoning',
    summary: text === undefined ? [] : [{ type: 'summary_text', text }],
  };
}

function messageItem(plan: ReplyPlan, ctx: WireContext, text: string | undefined) {
  const status =
    text === undefined ? 'in_progress' : incompleteReason(plan) ? 'incomplete' : 'completed';
  const content = text === undefined ? [] : [contentPart(plan, text)];
  return { id: ids.message(ctx), type: 'message', status, content, role: 'assistant' };
}

function functionCallItem(
  plan: ReplyPlan,
  ctx: WireContext,
  index: number,
  args: string | undefined,
) {
  const call = plan.toolCalls[index];
  const status = args === undefined ? 'in_progress' : 'completed';
  const id = ids.call(ctx, index);
  return {
    type: 'function_call',
    id,
    call_id: call.id,
    name: call.name,
    arguments: args ?? '',
    status,
  };
}

function outputItems(plan: ReplyPlan, ctx: WireContext): object[] {
  return [
    ...(plan.thinking ? [reasoningItem(ctx, plan.thinking)] : []),
    ...(plan.text ? [messageItem(plan, ctx, plan.text)] : []),
    ...plan.toolCalls.map((c, i) => functionCallItem(plan, ctx, i, c.args)),
  ];
}

type ResponseState = 'in_progress' | 'final' | 'failed';

function responseObject(plan: ReplyPlan, ctx: WireContext, state: ResponseState, error?: string) {
  const reason = incompleteReason(plan);
  const final = state === 'final';
  return {
    id: `resp_keel${ctx.seq}`,
    object: 'response',
    created_at: nowSeconds(),
    status: final ? (reason ? 'incomplete' : 'completed') : state,
    error: error ? { code: 'server_error', message: error } : null,
    incomplete_details: final && reason ? { reason } : null,
    instructions: ctx.body.instructions ?? null,
    max_output_tokens: ctx.body.max_output_tokens ?? null,
    model: ctx.model,
    output: final ? outputItems(plan, ctx) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: ctx.body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: final ? wireUsage(plan.usage) : null,
    metadata: {},
  };
}

function stream(plan: ReplyPlan, ctx: WireContext): StreamRenderer {
  let sequence = 0;
  const frame = (type: string, fields: object) =>
    sseFrame(type, { type, sequence_number: sequence++, ...fields });
  const refusal = plan.stop === 'refusal';
  let outputIndex = -1;
  let open:
    | { kind: 'thinking' | 'text' | 'tool'; id: string; text: string; toolIndex: number }
    | undefined;

  const openItem = (
    kind: 'thinking' | 'text' | 'tool',
    item: { id: string },
    toolIndex = -1,
  ): string[] => {
    outputIndex++;
    open = { kind, id: item.id, text: '', toolIndex };
    return [frame('response.output_item.added', { output_index: outputIndex, item })];
  };

  const closeItem = (): string[] => {
    if (!open) return [];
    const { kind, id, text, toolIndex } = open;
    open = undefined;
    const at = { item_id: id, output_index: outputIndex };
    const done = (item: object) =>
      frame('response.output_item.done', { output_index: outputIndex, item });
    switch (kind) {
      case 'thinking':
        return [
          frame('response.reasoning_summary_text.done', { ...at, summary_index: 0, text }),
          frame('response.reasoning_summary_part.done', {
            ...at,
            summary_index: 0,
            part: { type: 'summary_text', text },
          }),
          done(reasoningItem(ctx, text)),
        ];
      case 'text':
        return [
          refusal
            ? frame('response.refusal.done', { ...at, content_index: 0, refusal: text })
            : frame('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }),
          frame('response.content_part.done', {
            ...at,
            content_index: 0,
            part: contentPart(plan, text),
          }),
          done(messageItem(plan, ctx, text)),
        ];
      case 'tool':
        return [
          frame('response.function_call_arguments.done', { ...at, arguments: text }),
          done(functionCallItem(plan, ctx, toolIndex, text)),
        ];
    }
  };

  return {
    open: () => [
      frame('response.created', { response: responseObject(plan, ctx, 'in_progress') }),
      frame('response.in_progress', { response: responseObject(plan, ctx, 'in_progress') }),
    ],
    part(p) {
      const frames: string[] = [];
      switch (p.kind) {
        case 'thinking': {
          const opening = open?.kind !== 'thinking';
          if (opening)
            frames.push(...closeItem(), ...openItem('thinking', reasoningItem(ctx, undefined)));
          const at = { item_id: open!.id, output_index: outputIndex, summary_index: 0 };
          const part = { type: 'summary_text', text: '' };
          if (opening) frames.push(frame('response.reasoning_summary_part.added', { ...at, part }));
          open!.text += p.text;
          frames.push(frame('response.reasoning_summary_text.delta', { ...at, delta: p.text }));
          return frames;
        }
        case 'text': {
          const opening = open?.kind !== 'text';
          if (opening)
            frames.push(...closeItem(), ...openItem('text', messageItem(plan, ctx, undefined)));
          const at = { item_id: open!.id, output_index: outputIndex, content_index: 0 };
          if (opening)
            frames.push(
              frame('response.content_part.added', { ...at, part: contentPart(plan, '') }),
            );
          open!.text += p.text;
          frames.push(
            refusal
              ? frame('response.refusal.delta', { ...at, delta: p.text })
              : frame('response.output_text.delta', { ...at, delta: p.text, logprobs: [] }),
          );
          return frames;
        }
        case 'tool_start':
          return [
            ...closeItem(),
            ...openItem('tool', functionCallItem(plan, ctx, p.index, undefined), p.index),
          ];
        case 'tool_args': {
          open!.text += p.fragment;
          const at = { item_id: open!.id, output_index: outputIndex };
          return [frame('response.function_call_arguments.delta', { ...at, delta: p.fragment })];
        }
        case 'tool_end':
          return closeItem();
      }
    },
    close() {
      const final = responseObject(plan, ctx, 'final');
      const type = final.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
      return [...closeItem(), frame(type, { response: final })];
    },
    // As recorded (o14): an `error` event, then `response.failed`.
    error: (message) => [
      frame('error', {
        error: { type: 'server_error', code: 'server_error', message, param: null },
      }),
      frame('response.failed', { response: responseObject(plan, ctx, 'failed', message) }),
    ],
  };
}

export const openaiResponsesWire: WireFormat = {
  api: 'openai-responses',
  toolIdPrefix: 'call_keel',
  stream,
  message: (plan, ctx) => responseObject(plan, ctx, 'final'),
  errorBody: (status, msg) => ({
    error: {
      message: msg,
      type: status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null,
    },
  }),
};
