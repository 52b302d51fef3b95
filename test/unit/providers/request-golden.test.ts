import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAnthropicRequest } from '../../../src/providers/anthropic/request';
import { lookupModel } from '../../../src/providers/catalog';
import type { RequestInput } from '../../../src/providers/content';
import { buildChatRequest } from '../../../src/providers/openai-chat/request';
import { buildResponsesRequest } from '../../../src/providers/openai-responses/request';
import { FIXTURES_DIR } from './helpers/corpus';
import { CONVERSATION, SYSTEM, TOOLS } from './helpers/conversation';

/**
 * Golden request bodies: what crosses the wire for a representative conversation, per kind.
 * A change here is a change of the wire format: review the diff, then regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run test/unit/providers/request-golden.test.ts`.
 */

const GOLDEN_DIR = path.join(FIXTURES_DIR, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

const input = (model: string): RequestInput => ({
  model,
  system: SYSTEM,
  messages: CONVERSATION,
  tools: TOOLS,
  maxOutputTokens: 8192,
  temperature: 0.2,
  thinking: { budgetTokens: 4096 },
});

const CASES: Record<string, () => unknown> = {
  'anthropic.json': () =>
    buildAnthropicRequest(input('claude-sonnet-4-5'), lookupModel('claude-sonnet-4-5')),
  'anthropic-adaptive.json': () =>
    buildAnthropicRequest(input('claude-opus-4-7'), lookupModel('claude-opus-4-7')),
  'openai-chat.json': () =>
    buildChatRequest(input('gpt-4.1'), lookupModel('gpt-4.1'), {
      maxTokensField: 'max_completion_tokens',
      replayReasoningContent: false,
    }),
  'openai-chat-compatible.json': () =>
    buildChatRequest(input('deepseek-reasoner'), lookupModel('deepseek-reasoner'), {
      maxTokensField: 'max_tokens',
      replayReasoningContent: true,
    }),
  'openai-responses.json': () => buildResponsesRequest(input('o4-mini'), lookupModel('o4-mini')),
  // The breaker's final reply (issue 12): tools declared, none may be called; and the thread's
  // cache key (issue 17), sent on OpenAI only.
  'anthropic-tool-choice-none.json': () =>
    buildAnthropicRequest(finalReply('claude-sonnet-4-5'), lookupModel('claude-sonnet-4-5')),
  'openai-chat-tool-choice-none.json': () =>
    buildChatRequest(finalReply('gpt-4.1'), lookupModel('gpt-4.1'), {
      maxTokensField: 'max_completion_tokens',
      replayReasoningContent: false,
      promptCacheKey: true,
    }),
  'openai-responses-tool-choice-none.json': () =>
    buildResponsesRequest(finalReply('o4-mini'), lookupModel('o4-mini'), { promptCacheKey: true }),
};

function finalReply(model: string): RequestInput {
  return { ...input(model), thinking: null, toolChoice: 'none', cacheKey: 'th_golden' };
}

describe('golden request bodies', () => {
  for (const [file, build] of Object.entries(CASES)) {
    it(file, () => {
      const actual = `${JSON.stringify(build(), null, 2)}\n`;
      const target = path.join(GOLDEN_DIR, file);
      if (update || !fs.existsSync(target)) {
        fs.mkdirSync(GOLDEN_DIR, { recursive: true });
        fs.writeFileSync(target, actual);
      }
      expect(actual).toBe(fs.readFileSync(target, 'utf8'));
    });
  }

  it('every golden file has a case', () => {
    const files = fs
      .readdirSync(GOLDEN_DIR)
      .filter((name) => name.endsWith('.json'))
      .sort();
    expect(files).toEqual(Object.keys(CASES).sort());
  });
});
