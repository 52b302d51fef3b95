/**
 * Issue 12 through the built extension: after five failed tool calls in a row the breaker asks the
 * model for a final reply with tools forbidden, and that reaches the wire of every provider kind
 * (`tool_choice`: Anthropic `{type: 'none'}`, OpenAI Chat and Responses `'none'`), the tools
 * still declared. Before, no adapter mapped `toolChoice` and the request still allowed tool calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderKind } from '../../../src/protocol';
import { call, startToolSession } from '../tools/support';
import type { ToolSession } from '../tools/support';

let s: ToolSession;

beforeAll(async () => {
  s = await startToolSession();
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

const MODEL: Record<ProviderKind, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4o-mini',
  'openai-responses': 'gpt-4o',
};
const NONE: Record<ProviderKind, unknown> = {
  anthropic: { type: 'none' },
  openai: 'none',
  'openai-responses': 'none',
};

describe('the breaker forbids tools on the wire', () => {
  for (const kind of ['anthropic', 'openai', 'openai-responses'] as const) {
    it(`${kind}: the final reply after five failures carries tool_choice none`, async () => {
      const provider = s.server.provider(kind, `breaker-${kind}`);
      await s.client.sendOk({
        type: 'settings.update',
        patch: {
          providers: [provider],
          defaultModel: { providerId: provider.id, model: MODEL[kind] },
        },
      });
      const { page } = await s.open('catalog.html');
      const failing = Array.from({ length: 5 }, () => call('browser_click', { ref: 'e999999' }));
      const t = await s.turn('add the cheapest cable', [
        ...failing,
        { text: 'I could not click it.' },
      ]);
      expect(t.complete.stopReason).toBe('tool_failures');
      expect(t.results.filter((r) => !r.ok)).toHaveLength(5);
      expect(t.requests).toHaveLength(6);
      for (const r of t.requests.slice(0, 5)) expect(r.body.tool_choice).toBeUndefined();
      const last = t.requests[5];
      expect(last.body.tool_choice).toEqual(NONE[kind]);
      expect((last.body.tools as unknown[]).length).toBeGreaterThan(0);
      await page.close();
    });
  }
});
