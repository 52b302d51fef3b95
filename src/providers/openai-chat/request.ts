import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { ContentBlock } from '../../protocol';
import {
  argsObject,
  imageDataUrl,
  joinText,
  objectSchema,
  supportedImageType,
  unsupportedImageText,
  type ImageBlock,
  type RequestInput,
} from '../content';
import type { ModelInfo, ProviderMessage } from '../types';
import { reasoningEffort } from '../reasoning-effort';

/**
 * ProviderMessage[] → Chat Completions request body (OpenAI and compatible servers).
 *
 * - Tool results are `role: tool` messages. Chat Completions accepts only text there, so images a
 *   tool returned go in one user message right after the run of tool messages (a user message may
 *   not sit between an assistant's tool calls and their results).
 * - Text-only user content is sent as a plain string: some compatible servers reject part arrays.
 * - Thinking is replayed as `reasoning_content` only when the server produced it that way
 *   (DeepSeek, which rejects a conversation whose assistant messages lack it); then every
 *   assistant message carries the field, empty when it had no reasoning.
 * - Prompt caching is automatic on OpenAI for a repeated prefix: keys are ordered so each body
 *   begins with the previous one (model, tools, then the messages, system first), and the
 *   thread's `prompt_cache_key` keeps its requests on the same cache.
 * - `toolChoice: 'none'` is sent as `tool_choice: 'none'`, the tools still declared.
 */

export interface ChatRequestOptions {
  /** OpenAI deprecated `max_tokens` (reasoning models reject it); many compatible servers only know it. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /**
   * Whether `reasoning_content` may be sent back. Off for OpenAI itself, which never produces it
   * and rejects unknown message fields (a thread may have switched endpoints of the same kind).
   */
  replayReasoningContent: boolean;
  /** Whether `prompt_cache_key` is sent (OpenAI itself; compatible servers may reject it). */
  promptCacheKey?: boolean;
}

type AssistantWithReasoning = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

function userContent(content: readonly ContentBlock[]): string | ChatCompletionContentPart[] {
  if (content.every((block) => block.type === 'text')) return joinText(content);
  return content.map((block): ChatCompletionContentPart => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    const mediaType = supportedImageType(block.mimeType);
    return mediaType
      ? { type: 'image_url', image_url: { url: imageDataUrl(block, mediaType) } }
      : { type: 'text', text: unsupportedImageText(block) };
  });
}

function replayedReasoning(message: Extract<ProviderMessage, { role: 'assistant' }>): string {
  return (message.thinking ?? [])
    .filter((part) => part.providerKind === 'openai')
    .map((part) => part.text)
    .join('');
}

export function buildChatMessages(
  system: string,
  messages: readonly ProviderMessage[],
  options: Pick<ChatRequestOptions, 'replayReasoningContent'> = { replayReasoningContent: true },
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  const producedReasoning = messages.some(
    (m) => m.role === 'assistant' && replayedReasoning(m) !== '',
  );
  const replayReasoning = options.replayReasoningContent && producedReasoning;

  let pendingImages: { toolName: string; toolCallId: string; images: ImageBlock[] }[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    const parts: ChatCompletionContentPart[] = [];
    for (const entry of pendingImages) {
      const caption = `Image output of tool ${entry.toolName} (call ${entry.toolCallId}):`;
      parts.push({ type: 'text', text: caption });
      for (const image of entry.images) {
        const mediaType = supportedImageType(image.mimeType);
        parts.push(
          mediaType
            ? { type: 'image_url', image_url: { url: imageDataUrl(image, mediaType) } }
            : { type: 'text', text: unsupportedImageText(image) },
        );
      }
    }
    out.push({ role: 'user', content: parts });
    pendingImages = [];
  };

  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    if (message.role === 'user') {
      const content = userContent(message.content);
      if (content.length > 0) out.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      const assistant: AssistantWithReasoning = {
        role: 'assistant',
        content: message.text === '' ? null : message.text,
      };
      if (message.toolCalls.length > 0) {
        assistant.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(argsObject(call.args)) },
        }));
      }
      if (replayReasoning) assistant.reasoning_content = replayedReasoning(message);
      if (assistant.content !== null || assistant.tool_calls) out.push(assistant);
    } else {
      const images = message.content.filter((block): block is ImageBlock => block.type === 'image');
      let text = joinText(message.content);
      if (images.length > 0) {
        pendingImages.push({ toolName: message.toolName, toolCallId: message.toolCallId, images });
        const note = `(${images.length} image${images.length > 1 ? 's' : ''} attached in the next message)`;
        text = text === '' ? note : `${text}\n${note}`;
      }
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: text });
    }
  }
  flushImages();
  return out;
}

export function buildChatRequest(
  input: RequestInput,
  model: ModelInfo,
  options: ChatRequestOptions,
): ChatCompletionCreateParamsStreaming {
  const body = { model: input.model } as ChatCompletionCreateParamsStreaming;
  if (input.tools.length > 0) {
    body.tools = input.tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: objectSchema(tool.inputSchema),
        },
      }),
    );
  }
  body.messages = buildChatMessages(input.system, input.messages, options);
  body.stream = true;
  body.stream_options = { include_usage: true };
  if (input.toolChoice === 'none' && input.tools.length > 0) body.tool_choice = 'none';
  if (options.promptCacheKey && input.cacheKey) body.prompt_cache_key = input.cacheKey;
  if (input.maxOutputTokens !== undefined) body[options.maxTokensField] = input.maxOutputTokens;
  const thinking = input.thinking && model.thinking !== false ? input.thinking : null;
  if (thinking) body.reasoning_effort = reasoningEffort(thinking.budgetTokens);
  if (input.temperature !== undefined && !thinking && model.temperature !== false) {
    body.temperature = input.temperature;
  }
  return body;
}
