import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputItem,
  ResponseInputMessageContentList,
} from 'openai/resources/responses/responses';
import type { ContentBlock } from '../../protocol';
import {
  argsObject,
  imageDataUrl,
  joinText,
  objectSchema,
  supportedImageType,
  unsupportedImageText,
  type RequestInput,
} from '../content';
import { reasoningEffort } from '../reasoning-effort';
import type { ModelInfo, ProviderMessage } from '../types';

/**
 * ProviderMessage[] → Responses API request body.
 *
 * - `store: false`: the conversation lives in the extension, not on OpenAI's servers. Reasoning
 *   items are therefore replayed by value: only those returned with `encrypted_content` (which we
 *   request with `include` whenever the model reasons) are sent back, with their id and summary.
 * - Assistant tool calls are `function_call` items without their `fc_…` item id: an item id would
 *   make the API demand the reasoning item that preceded it.
 * - Tool results are `function_call_output` items; images go in the output list as `input_image`.
 * - Prompt caching: keys ordered so each body begins with the previous one (model, tools,
 *   instructions, then the input items), and the thread's `prompt_cache_key` on OpenAI.
 * - `toolChoice: 'none'` is sent as `tool_choice: 'none'`, the tools still declared.
 */

export interface ResponsesRequestOptions {
  /** Whether `prompt_cache_key` is sent (OpenAI itself; compatible servers may reject it). */
  promptCacheKey: boolean;
}

function inputContent(content: readonly ContentBlock[]): ResponseInputMessageContentList {
  return content.map((block) => {
    if (block.type === 'text') return { type: 'input_text', text: block.text };
    const mediaType = supportedImageType(block.mimeType);
    return mediaType
      ? { type: 'input_image', image_url: imageDataUrl(block, mediaType), detail: 'auto' }
      : { type: 'input_text', text: unsupportedImageText(block) };
  });
}

function toolOutput(content: readonly ContentBlock[]): string | ResponseFunctionCallOutputItemList {
  if (content.every((block) => block.type === 'text')) return joinText(content);
  return inputContent(content) as ResponseFunctionCallOutputItemList;
}

export function buildResponsesInput(messages: readonly ProviderMessage[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const nonEmpty = message.content.filter(
        (block) => block.type !== 'text' || block.text !== '',
      );
      const content = inputContent(nonEmpty);
      if (content.length > 0) out.push({ type: 'message', role: 'user', content });
    } else if (message.role === 'tool') {
      out.push({
        type: 'function_call_output',
        call_id: message.toolCallId,
        output: toolOutput(message.content),
      });
    } else {
      for (const part of message.thinking ?? []) {
        if (part.providerKind !== 'openai-responses' || !part.itemId || !part.encryptedContent)
          continue;
        out.push({
          type: 'reasoning',
          id: part.itemId,
          summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
          encrypted_content: part.encryptedContent,
        });
      }
      if (message.text !== '')
        out.push({ type: 'message', role: 'assistant', content: message.text });
      for (const call of message.toolCalls) {
        out.push({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: JSON.stringify(argsObject(call.args)),
        });
      }
    }
  }
  return out;
}

export function buildResponsesRequest(
  input: RequestInput,
  model: ModelInfo,
  options: ResponsesRequestOptions = { promptCacheKey: true },
): ResponseCreateParamsStreaming {
  const body = { model: input.model } as ResponseCreateParamsStreaming;
  if (input.tools.length > 0) {
    body.tools = input.tools.map(
      (tool): FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: objectSchema(tool.inputSchema),
        strict: false,
      }),
    );
  }
  if (input.system !== '') body.instructions = input.system;
  body.input = buildResponsesInput(input.messages);
  body.stream = true;
  body.store = false;
  if (input.toolChoice === 'none' && input.tools.length > 0) body.tool_choice = 'none';
  if (options.promptCacheKey && input.cacheKey) body.prompt_cache_key = input.cacheKey;
  if (input.maxOutputTokens !== undefined) body.max_output_tokens = input.maxOutputTokens;
  const thinking = input.thinking && model.thinking !== false ? input.thinking : null;
  if (thinking)
    body.reasoning = { effort: reasoningEffort(thinking.budgetTokens), summary: 'auto' };
  // Without stored responses, encrypted reasoning is the only way to carry it to the next step.
  // Models that do not reason reject the include, so it is asked only of reasoning models.
  if (thinking || model.thinking === true) body.include = ['reasoning.encrypted_content'];
  if (input.temperature !== undefined && !thinking && model.temperature !== false) {
    body.temperature = input.temperature;
  }
  return body;
}
