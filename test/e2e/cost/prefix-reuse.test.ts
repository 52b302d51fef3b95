/**
 * Issue 17 through the built extension: a long turn of page snapshots with the Anthropic kind
 * (and the OpenAI kind).
 * The scripted model server records the bodies the SDK really sent; each request must begin with
 * the previous one (mean prefix reuse ≥ 98 %), with its cache breakpoints on the tools, the system
 * prompt and the last message; the cache usage the API reports reaches token.usage, and the turn
 * is priced with the cache rates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefixReuse } from '../../../scripts/bench/cost-measure';
import type { ScriptedReply } from '../harness';
import { call, startToolSession } from '../tools/support';
import type { ToolSession } from '../tools/support';

let s: ToolSession;

async function useKind(kind: 'anthropic' | 'openai', model: string): Promise<void> {
  const provider = s.server.provider(kind, `scripted-${kind}`);
  await s.client.sendOk({
    type: 'settings.update',
    patch: { providers: [provider], defaultModel: { providerId: provider.id, model } },
  });
}

/** 18 steps on the catalog page: snapshots, finds and page text, then an answer. */
function longTurn(usage: ScriptedReply['usage']): ScriptedReply[] {
  const steps = Array.from(
    { length: 18 },
    (_, i): ScriptedReply =>
      i % 3 === 0
        ? call('browser_snapshot')
        : i % 3 === 1
          ? call('browser_find', { query: `cable model ${1000 + i}` })
          : call('browser_get_text'),
  );
  // browser_get_text is offered on demand (docs/tools.md): the turn loads it first.
  const load = call('load_tools', { names: ['browser_get_text'] });
  return [load, ...steps, { text: 'The cheapest is the Anker 1 m.' }].map((r) => ({ ...r, usage }));
}

/**
 * Every request begins with the previous one, except the one right after the load: its tool
 * list, the front of the request, gains the loaded tool at its end (a load appends, so the
 * tools before it stay the cached prefix). Returns the shares of the others.
 */
function appendOnlyAfterLoad(bodies: string[], toolNames: (i: number) => string[]) {
  const reuse = prefixReuse(bodies);
  expect(reuse.edits).toBe(1);
  const at = reuse.shares.findIndex((x) => x < 0.9);
  expect(at).toBe(0);
  expect(toolNames(1).slice(0, -1)).toEqual(toolNames(0));
  expect(toolNames(1).at(-1)).toBe('browser_get_text');
  const rest = reuse.shares.slice(1);
  return { rest, mean: rest.reduce((a, b) => a + b, 0) / rest.length };
}

beforeAll(async () => {
  s = await startToolSession();
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

/** What the scripted API reports for each step: most of the prompt read from the cache. */
const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 1000, cacheWriteTokens: 50 };

describe('prompt caching through the built extension', () => {
  it('a 18-step snapshot turn: every request begins with the previous one; breakpoints and cache usage', async () => {
    await useKind('anthropic', 'claude-sonnet-4-5');
    const { page } = await s.open('catalog.html');
    const t = await s.turn('compare every cable on this page', longTurn(USAGE), {
      timeoutMs: 120_000,
    });
    expect(t.complete.stopReason).toBe('end');
    expect(t.results.filter((r) => r.ok)).toHaveLength(18);
    const bodies = t.requests.map((r) => r.raw);
    expect(bodies).toHaveLength(20);
    expect(t.requests.every((r) => r.api === 'anthropic')).toBe(true);

    const reuse = appendOnlyAfterLoad(bodies, (i) =>
      (t.requests[i].body as { tools: { name: string }[] }).tools.map((x) => x.name),
    );
    expect(
      reuse.mean,
      `shares ${reuse.rest.map((x) => x.toFixed(3)).join(' ')}`,
    ).toBeGreaterThanOrEqual(0.98);

    for (const r of t.requests) {
      const body = r.body as {
        tools: { cache_control?: unknown }[];
        system: { cache_control?: unknown }[];
        messages: { content: { cache_control?: unknown }[] }[];
      };
      expect(r.raw.match(/"cache_control"/g)?.length).toBe(3);
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      // Keys in the cache's order, what changes last: tools, system, then the messages.
      expect(Object.keys(r.body).slice(0, 5)).toEqual([
        'model',
        'max_tokens',
        'tools',
        'system',
        'messages',
      ]);
    }

    // Cache usage reached the events, and the turn is priced at the cache rates (Sonnet 4.5:
    // $3 input, $0.30 cache read, $3.75 cache write, $15 output per million).
    const usage = s.client
      .eventsOf('token.usage')
      .filter((e) => e.runId === t.runId)
      .at(-1)!;
    expect(usage.turnUsage).toMatchObject({
      inputTokens: 20 * 1150,
      cacheReadTokens: 20 * 1000,
      cacheWriteTokens: 20 * 50,
      outputTokens: 20 * 10,
    });
    const perStep = (100 * 3 + 1000 * 0.3 + 50 * 3.75 + 10 * 15) / 1e6;
    expect(usage.turnCostUsd).toBeCloseTo(20 * perStep, 9);
    await page.close();
  });

  it('the same turn with the OpenAI kind: append-only bodies, cached tokens priced at the cache rate', async () => {
    await useKind('openai', 'gpt-4o-mini');
    const { page } = await s.open('catalog.html');
    const t = await s.turn('compare every cable on this page', longTurn(USAGE), {
      timeoutMs: 120_000,
    });
    expect(t.complete.stopReason).toBe('end');
    expect(t.results.filter((r) => r.ok)).toHaveLength(18);
    const reuse = appendOnlyAfterLoad(
      t.requests.map((r) => r.raw),
      (i) =>
        (t.requests[i].body as { tools: { function: { name: string } }[] }).tools.map(
          (x) => x.function.name,
        ),
    );
    expect(
      reuse.mean,
      `shares ${reuse.rest.map((x) => x.toFixed(3)).join(' ')}`,
    ).toBeGreaterThanOrEqual(0.98);
    for (const r of t.requests) {
      expect(Object.keys(r.body).slice(0, 3)).toEqual(['model', 'tools', 'messages']);
      // A compatible server (this one) gets no prompt_cache_key: only OpenAI itself does.
      expect(r.body.prompt_cache_key).toBeUndefined();
    }
    // gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million.
    const usage = s.client
      .eventsOf('token.usage')
      .filter((e) => e.runId === t.runId)
      .at(-1)!;
    expect(usage.turnUsage).toMatchObject({
      inputTokens: 20 * 1100,
      cacheReadTokens: 20 * 1000,
      outputTokens: 20 * 10,
    });
    expect(usage.turnCostUsd).toBeCloseTo((20 * (100 * 0.15 + 1000 * 0.075 + 10 * 0.6)) / 1e6, 9);
    await page.close();
  });
});
