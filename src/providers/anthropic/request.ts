import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ContentBlock } from '../../protocol';
import {
  argsObject,
  objectSchema,
  supportedImageType,
  unsupportedImageText,
  type RequestInput,
} from '../content';
import type { ModelInfo, ProviderMessage } from '../types';

/**
 * ProviderMessage[] → Anthropic Messages request body.
 *
 * - Tool results are `tool_result` blocks in a user message; consecutive results (and any user text
 *   after them) share one user message, results first, as the API requires.
 * - Thinking is replayed only when Anthropic produced it, with its signature; redacted thinking as is.
 * - Empty text blocks and empty messages are dropped: the API rejects them.
 * - Prompt caching (3 of the 4 breakpoints allowed): the last tool, the system prompt, and the last
 *   message. The last one writes this step's prefix, and the next request finds it by the API's
 *   look-back from its own last breakpoint. A breakpoint on an older message would move on every
 *   step and change the body there; this way the only bytes of a request the next one changes are
 *   its last marker. Keys are in the API's cache order (tools, system, messages), what varies
 *   (messages) last, so each request begins with the previous one.
 * - `toolChoice: 'none'` is sent as `tool_choice: {type: 'none'}`: the tools stay declared (the
 *   history has tool calls) but the model may not call one.
 * - Thinking: `adaptive` for models that only support it, else a `budget_tokens` clamped to what the
 *   API accepts (≥ 1024 and below max_tokens).
 */

/** Output budget when the engine sets none: generous for an agent step, without reserving 128K. */
const DEFAULT_MAX_TOKENS = 16_384;
const DEFAULT_MAX_TOKENS_THINKING = 32_000;
const MIN_THINKING_BUDGET = 1024;

type AnthropicContentBlock = ContentBlockParam;
type UserBlock = Extract<AnthropicContentBlock, { type: 'text' | 'image' | 'tool_result' }>;

function userBlocks(content: readonly ContentBlock[]): UserBlock[] {
  const out: UserBlock[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text !== '') out.push({ type: 'text', text: block.text });
      continue;
    }
    const mediaType = supportedImageType(block.mimeType);
    out.push(
      mediaType
        ? {
            type: 'image',
            source: { type: 'base64', media_type: mediaType, data: block.dataBase64 },
          }
        : { type: 'text', text: unsupportedImageText(block) },
    );
  }
  return out;
}

function toolResultBlock(
  message: Extract<ProviderMessage, { role: 'tool' }>,
): ToolResultBlockParam {
  const content = userBlocks(message.content).filter(
    (block): block is Extract<UserBlock, { type: 'text' | 'image' }> =>
      block.type !== 'tool_result',
  );
  const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: message.toolCallId };
  if (content.length > 0) result.content = content;
  if (message.isError) result.is_error = true;
  return result;
}

type AssistantMessage = Extract<ProviderMessage, { role: 'assistant' }>;

function assistantBlocks(message: AssistantMessage): AnthropicContentBlock[] {
  const out: AnthropicContentBlock[] = [];
  for (const part of message.thinking ?? []) {
    if (part.providerKind !== 'anthropic') continue;
    if (part.redactedData) out.push({ type: 'redacted_thinking', data: part.redactedData });
    else if (part.signature)
      out.push({ type: 'thinking', thinking: part.text, signature: part.signature });
  }
  if (message.text !== '') out.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    out.push({ type: 'tool_use', id: call.id, name: call.name, input: argsObject(call.args) });
  }
  return out;
}

export function buildAnthropicMessages(messages: readonly ProviderMessage[]): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[] = [];
  const append = (role: 'user' | 'assistant', blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  };
  for (const message of messages) {
    if (message.role === 'user') append('user', userBlocks(message.content));
    else if (message.role === 'tool') append('user', [toolResultBlock(message)]);
    else append('assistant', assistantBlocks(message));
  }
  // tool_result blocks must lead their user message.
  for (const message of out) {
    if (message.role !== 'user') continue;
    const results = message.content.filter((block) => block.type === 'tool_result');
    const others = message.content.filter((block) => block.type !== 'tool_result');
    if (results.length > 0) message.content = [...results, ...others];
  }
  return out;
}

const CACHEABLE = new Set(['text', 'image', 'tool_result', 'tool_use']);
const EPHEMERAL = { type: 'ephemeral' } as const;

function markLastMessage(messages: MessageParam[]): void {
  const last = messages[messages.length - 1];
  if (!last || typeof last.content === 'string') return;
  const block = [...last.content].reverse().find((candidate) => CACHEABLE.has(candidate.type));
  // Last key of the block: the bytes before it are the same in the next request.
  if (block && !('cache_control' in block)) Object.assign(block, { cache_control: EPHEMERAL });
}

function thinkingParams(
  input: RequestInput,
  model: ModelInfo,
): { thinking?: ThinkingConfigParam; maxTokens: number } {
  const wanted = input.thinking && model.thinking !== false ? input.thinking : null;
  const cap = model.maxOutputTokens;
  if (!wanted) return { maxTokens: input.maxOutputTokens ?? Math.min(cap, DEFAULT_MAX_TOKENS) };
  const maxTokens = input.maxOutputTokens ?? Math.min(cap, DEFAULT_MAX_TOKENS_THINKING);
  if (model.thinkingMode === 'adaptive') return { thinking: { type: 'adaptive' }, maxTokens };
  // budget_tokens must be at least 1024 and below max_tokens.
  const budget = Math.min(Math.max(MIN_THINKING_BUDGET, wanted.budgetTokens), maxTokens - 1024);
  if (budget < MIN_THINKING_BUDGET) return { maxTokens };
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
}

export function buildAnthropicRequest(
  input: RequestInput,
  model: ModelInfo,
): MessageCreateParamsStreaming {
  const messages = buildAnthropicMessages(input.messages);
  markLastMessage(messages);
  const { thinking, maxTokens } = thinkingParams(input, model);

  const body = { model: input.model, max_tokens: maxTokens } as MessageCreateParamsStreaming;
  if (thinking) body.thinking = thinking;
  if (input.tools.length > 0) {
    body.tools = input.tools.map(
      (tool): Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: objectSchema(tool.inputSchema),
      }),
    );
    Object.assign(body.tools[body.tools.length - 1], { cache_control: EPHEMERAL });
  }
  if (input.system !== '') {
    const system: TextBlockParam = { type: 'text', text: input.system, cache_control: EPHEMERAL };
    body.system = [system];
  }
  body.messages = messages;
  body.stream = true;
  if (input.toolChoice === 'none' && input.tools.length > 0) body.tool_choice = { type: 'none' };
  // No `temperature`: the API version this SDK speaks has no sampling parameters (and the models of
  // the last generations reject non-default ones), so `ProviderRequest.temperature` is not sent.
  return body;
}
