import { describe, expect, it } from 'vitest';
import {
  buildAnthropicMessages,
  buildAnthropicRequest,
} from '../../../src/providers/anthropic/request';
import { lookupModel } from '../../../src/providers/catalog';
import type { RequestInput } from '../../../src/providers/content';
import { buildChatMessages, buildChatRequest } from '../../../src/providers/openai-chat/request';
import {
  buildResponsesInput,
  buildResponsesRequest,
} from '../../../src/providers/openai-responses/request';
import type { ProviderMessage } from '../../../src/providers/types';
import { CONVERSATION, PIXEL_PNG, SYSTEM, TOOLS } from './helpers/conversation';

const input = (overrides: Partial<RequestInput> = {}): RequestInput => ({
  model: 'claude-sonnet-4-5',
  system: SYSTEM,
  messages: CONVERSATION,
  tools: TOOLS,
  ...overrides,
});

const chatOptions = {
  maxTokensField: 'max_completion_tokens',
  replayReasoningContent: false,
} as const;

describe('Anthropic request builder', () => {
  it('puts tool results first in one user message, even when user text came between them', () => {
    const messages: ProviderMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { id: 'a', name: 't', args: {} },
          { id: 'b', name: 't', args: {} },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'a',
        toolName: 't',
        content: [{ type: 'text', text: 'A' }],
        isError: false,
      },
      { role: 'user', content: [{ type: 'text', text: 'steer' }] },
      { role: 'tool', toolCallId: 'b', toolName: 't', content: [], isError: true },
    ];
    const out = buildAnthropicMessages(messages);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(out[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'A' }] },
      { type: 'tool_result', tool_use_id: 'b', is_error: true },
      { type: 'text', text: 'steer' },
    ]);
  });

  it('replays only Anthropic thinking, with its signature, and redacted thinking as is', () => {
    const out = buildAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        text: 'a',
        thinking: [
          { text: 'unsigned', providerKind: 'anthropic' },
          { text: 'signed', signature: 's1', providerKind: 'anthropic' },
          { text: '', redactedData: 'r1', providerKind: 'anthropic' },
          {
            text: 'from openai',
            itemId: 'rs',
            encryptedContent: 'e',
            providerKind: 'openai-responses',
          },
          { text: 'unknown origin' },
        ],
        toolCalls: [],
      },
    ]);
    expect(out[1].content).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 's1' },
      { type: 'redacted_thinking', data: 'r1' },
      { type: 'text', text: 'a' },
    ]);
  });

  it('drops empty text and empty messages, which the API rejects', () => {
    const out = buildAnthropicMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: '' },
          { type: 'text', text: 'hi' },
        ],
      },
      { role: 'assistant', text: '', toolCalls: [] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]);
    expect(out).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('sends tool-call arguments as an object even when they were not one', () => {
    const out = buildAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', text: '', toolCalls: [{ id: 'x', name: 't', args: 'not an object' }] },
    ]);
    expect(out[1].content).toEqual([{ type: 'tool_use', id: 'x', name: 't', input: {} }]);
  });

  it('turns an image format the API does not take into a placeholder', () => {
    const out = buildAnthropicMessages([
      { role: 'user', content: [{ type: 'image', mimeType: 'image/bmp', dataBase64: 'Qk0=' }] },
    ]);
    expect(out[0].content).toEqual([
      { type: 'text', text: '[image omitted: unsupported format image/bmp]' },
    ]);
  });

  it('clamps the thinking budget to what the API accepts', () => {
    const model = lookupModel('claude-sonnet-4-5');
    expect(
      buildAnthropicRequest(input({ thinking: { budgetTokens: 10 } }), model).thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    const big = buildAnthropicRequest(
      input({ thinking: { budgetTokens: 50_000 }, maxOutputTokens: 8192 }),
      model,
    );
    expect(big.thinking).toEqual({ type: 'enabled', budget_tokens: 7168 });
    // No room for the minimum budget: no thinking rather than a 400.
    expect(
      buildAnthropicRequest(
        input({ thinking: { budgetTokens: 2048 }, maxOutputTokens: 1500 }),
        model,
      ).thinking,
    ).toBeUndefined();
  });

  it('uses adaptive thinking for models that only support it, and none for models without thinking', () => {
    expect(
      buildAnthropicRequest(
        input({ thinking: { budgetTokens: 4096 } }),
        lookupModel('claude-opus-4-7'),
      ).thinking,
    ).toEqual({ type: 'adaptive' });
    expect(
      buildAnthropicRequest(
        input({ thinking: { budgetTokens: 4096 } }),
        lookupModel('claude-3-5-haiku'),
      ).thinking,
    ).toBeUndefined();
  });

  it('defaults max_tokens to a modest budget below the model maximum', () => {
    expect(buildAnthropicRequest(input(), lookupModel('claude-opus-4-6')).max_tokens).toBe(16_384);
    expect(buildAnthropicRequest(input(), lookupModel('claude-3-5-haiku')).max_tokens).toBe(8192);
  });

  it('never sends temperature and uses at most four cache breakpoints', () => {
    const body = buildAnthropicRequest(
      input({ temperature: 0.3 }),
      lookupModel('claude-sonnet-4-5'),
    );
    expect('temperature' in body).toBe(false);
    expect(JSON.stringify(body).match(/cache_control/g)?.length).toBeLessThanOrEqual(4);
  });

  it('omits system and tools when empty', () => {
    const body = buildAnthropicRequest(
      input({ system: '', tools: [] }),
      lookupModel('claude-sonnet-4-5'),
    );
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
  });
});

describe('Chat Completions request builder', () => {
  it('sends tool images in one user message after the run of tool messages', () => {
    const roles = buildChatMessages(SYSTEM, CONVERSATION).map((m) => m.role);
    expect(roles).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    const imageMessage = buildChatMessages(SYSTEM, CONVERSATION)[5];
    expect(imageMessage).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Image output of tool screenshot (call call_shot):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}` } },
      ],
    });
  });

  it('sends text-only user content as a string', () => {
    const out = buildChatMessages('', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
    expect(out).toEqual([{ role: 'user', content: 'a\nb' }]);
  });

  it('asks for usage in the stream and omits empty tools', () => {
    const body = buildChatRequest(
      input({ model: 'gpt-4o', tools: [] }),
      lookupModel('gpt-4o'),
      chatOptions,
    );
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tools).toBeUndefined();
  });

  it('sends reasoning_effort only when thinking is asked of a model that can think', () => {
    const thinking = { budgetTokens: 20_000 };
    expect(
      buildChatRequest(input({ model: 'o4-mini', thinking }), lookupModel('o4-mini'), chatOptions)
        .reasoning_effort,
    ).toBe('high');
    expect(
      buildChatRequest(input({ model: 'gpt-4o', thinking }), lookupModel('gpt-4o'), chatOptions)
        .reasoning_effort,
    ).toBeUndefined();
    expect(
      buildChatRequest(input({ model: 'o4-mini' }), lookupModel('o4-mini'), chatOptions)
        .reasoning_effort,
    ).toBeUndefined();
  });

  it('sends temperature only to models that accept one', () => {
    expect(
      buildChatRequest(
        input({ model: 'gpt-4o', temperature: 0.1 }),
        lookupModel('gpt-4o'),
        chatOptions,
      ).temperature,
    ).toBe(0.1);
    expect(
      buildChatRequest(
        input({ model: 'gpt-5', temperature: 0.1 }),
        lookupModel('gpt-5'),
        chatOptions,
      ).temperature,
    ).toBeUndefined();
  });

  it('uses the max-tokens field the endpoint understands', () => {
    const request = input({ model: 'llama3.2', maxOutputTokens: 100 });
    expect(
      buildChatRequest(request, lookupModel('llama3.2'), {
        ...chatOptions,
        maxTokensField: 'max_tokens',
      }),
    ).toMatchObject({ max_tokens: 100 });
    expect(buildChatRequest(request, lookupModel('llama3.2'), chatOptions)).toMatchObject({
      max_completion_tokens: 100,
    });
  });

  it('replays reasoning_content on every assistant message once a compatible server produced it', () => {
    const out = buildChatMessages('', CONVERSATION, { replayReasoningContent: true });
    const assistants = out.filter((m) => m.role === 'assistant');
    expect(assistants.map((m) => (m as { reasoning_content?: string }).reasoning_content)).toEqual([
      'Reasoning from a compatible server.',
      '',
    ]);
    const withoutReasoning = buildChatMessages(
      '',
      CONVERSATION.map((m) => (m.role === 'assistant' ? { ...m, thinking: [] } : m)),
      {
        replayReasoningContent: true,
      },
    );
    expect(withoutReasoning.some((m) => 'reasoning_content' in m)).toBe(false);
  });
});

describe('Responses request builder', () => {
  it('replays only reasoning items that carry encrypted content', () => {
    const items = buildResponsesInput([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        text: 'a',
        thinking: [
          {
            text: 'kept',
            itemId: 'rs_keep',
            encryptedContent: 'enc',
            providerKind: 'openai-responses',
          },
          { text: 'no content', itemId: 'rs_drop', providerKind: 'openai-responses' },
          { text: 'anthropic', signature: 's', providerKind: 'anthropic' },
        ],
        toolCalls: [],
      },
    ]);
    expect(items.filter((item) => 'type' in item && item.type === 'reasoning')).toEqual([
      {
        type: 'reasoning',
        id: 'rs_keep',
        summary: [{ type: 'summary_text', text: 'kept' }],
        encrypted_content: 'enc',
      },
    ]);
  });

  it('does not store responses, and asks for encrypted reasoning only from reasoning models', () => {
    const reasoning = buildResponsesRequest(input({ model: 'gpt-5' }), lookupModel('gpt-5'));
    expect(reasoning.store).toBe(false);
    expect(reasoning.include).toEqual(['reasoning.encrypted_content']);
    expect(reasoning.reasoning).toBeUndefined();
    const plain = buildResponsesRequest(input({ model: 'gpt-4o' }), lookupModel('gpt-4o'));
    expect(plain.include).toBeUndefined();
  });

  it('sends text-only tool output as a string', () => {
    const items = buildResponsesInput(CONVERSATION);
    expect(
      items.find(
        (item) =>
          'call_id' in item &&
          item.call_id === 'call_click' &&
          item.type === 'function_call_output',
      ),
    ).toEqual({
      type: 'function_call_output',
      call_id: 'call_click',
      output: 'Element e12 is not visible.',
    });
  });
});
