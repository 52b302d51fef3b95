import { describe, expect, it } from 'vitest';
import {
  catalogKey,
  catalogModels,
  lookupModel,
  UNKNOWN_MODEL_DEFAULTS,
} from '../../../src/providers/catalog';
import { costUsd } from '../../../src/providers/cost';
import { providerModelInfo } from '../../../src/providers/create-provider';

describe('model catalog', () => {
  it('knows the current Claude and OpenAI families', () => {
    for (const id of [
      'claude-opus-4-5',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'claude-sonnet-4-0',
      'claude-opus-4-1',
      'claude-sonnet-4-6',
      'claude-opus-4-7',
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-5',
      'gpt-5-mini',
      'o3',
      'o4-mini',
    ]) {
      const info = lookupModel(id);
      expect(info.pricing, id).toBeDefined();
      expect(info.toolUse, id).toBe(true);
      expect(info.contextWindow, id).toBeGreaterThanOrEqual(128_000);
    }
  });

  it('records capabilities and prices (USD per million tokens)', () => {
    expect(lookupModel('claude-sonnet-4-5')).toEqual({
      id: 'claude-sonnet-4-5',
      toolUse: true,
      vision: true,
      thinking: true,
      thinkingMode: 'budget',
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(lookupModel('gpt-4o')).toMatchObject({
      vision: true,
      thinking: false,
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      pricing: { input: 2.5, output: 10, cacheRead: 1.25 },
    });
    expect(lookupModel('o4-mini')).toMatchObject({
      thinking: true,
      thinkingMode: 'effort',
      temperature: false,
    });
    expect(lookupModel('claude-opus-4-7')).toMatchObject({
      thinkingMode: 'adaptive',
      contextWindow: 1_000_000,
    });
  });

  it('resolves dated snapshots, gateway prefixes and aliases', () => {
    expect(catalogKey('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(catalogKey('anthropic/claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(catalogKey('claude-sonnet-4-20250514')).toBe('claude-sonnet-4-0');
    expect(catalogKey('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(catalogKey('openai/gpt-4.1-mini')).toBe('gpt-4.1-mini');
    // The id reported back is the one asked for.
    expect(lookupModel('gpt-4o-mini-2024-07-18')).toMatchObject({
      id: 'gpt-4o-mini-2024-07-18',
      pricing: { input: 0.15 },
    });
  });

  it('gives unknown models sensible defaults and no price', () => {
    expect(lookupModel('llama3.2:3b')).toEqual({ id: 'llama3.2:3b', ...UNKNOWN_MODEL_DEFAULTS });
    expect(UNKNOWN_MODEL_DEFAULTS).toEqual({
      toolUse: true,
      vision: false,
      contextWindow: 128_000,
      maxOutputTokens: 8192,
    });
  });

  it('applies per-provider overrides from settings', () => {
    const models = [
      { id: 'qwen2.5-vl', vision: true, contextWindow: 32_768 },
      { id: 'gpt-4o', toolUse: false },
    ];
    expect(providerModelInfo({ models }, 'qwen2.5-vl')).toEqual({
      id: 'qwen2.5-vl',
      toolUse: true,
      vision: true,
      contextWindow: 32_768,
      maxOutputTokens: 8192,
    });
    expect(providerModelInfo({ models }, 'gpt-4o')).toMatchObject({
      toolUse: false,
      vision: true,
      pricing: { input: 2.5 },
    });
    expect(providerModelInfo({}, 'gpt-4o').toolUse).toBe(true);
  });

  it('lists models per kind for pickers', () => {
    expect(catalogModels('anthropic').every((m) => m.id.startsWith('claude-'))).toBe(true);
    expect(catalogModels('openai').map((m) => m.id)).toContain('gpt-5');
  });
});

describe('costUsd', () => {
  it('prices input, output and cache parts at their own rates', () => {
    const sonnet = lookupModel('claude-sonnet-4-5');
    // 10k prompt tokens of which 6k read from cache and 2k written to it, 1k output.
    const cost = costUsd(sonnet, {
      inputTokens: 10_000,
      outputTokens: 1000,
      cacheReadTokens: 6000,
      cacheWriteTokens: 2000,
    });
    expect(cost).toBeCloseTo((2000 * 3 + 6000 * 0.3 + 2000 * 3.75 + 1000 * 15) / 1e6, 10);
  });

  it('prices OpenAI cached input', () => {
    const cost = costUsd(lookupModel('gpt-4.1'), {
      inputTokens: 1_000_000,
      outputTokens: 0,
      cacheReadTokens: 500_000,
    });
    expect(cost).toBeCloseTo(0.5 * 2 + 0.5 * 0.5, 10);
  });

  it('is undefined for a model without a price', () => {
    expect(
      costUsd(lookupModel('my-local-model'), { inputTokens: 100, outputTokens: 100 }),
    ).toBeUndefined();
  });

  it('falls back to the input rate for an unknown cache rate', () => {
    expect(
      costUsd(
        { pricing: { input: 1, output: 2 } },
        { inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6 },
      ),
    ).toBe(3);
  });
});
