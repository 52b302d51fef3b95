import { describe, expect, it, vi } from 'vitest';

// Observe digest computations (the real function still runs).
const digests = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/util/canonical-json', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../../src/util/canonical-json')>();
  return {
    ...orig,
    digestOf: (v: unknown) => {
      digests.count += 1;
      return orig.digestOf(v);
    },
  };
});

import { EnvironmentError, resolveEnvironment } from '../../../src/engine/env/environment';
import { defaultSettings } from '../../../src/store/settings-repo';
import { ToolRegistry } from '../../../src/tools/registry';
import { testTool } from './harness';

const providers = {
  resolve: async () => null,
  modelInfo: async (_p: string, m: string) => ({
    id: m,
    toolUse: true,
    vision: false,
    contextWindow: 100_000,
    maxOutputTokens: 4096,
  }),
  transportIdentity: async () => ({ kind: 'scripted' as const }),
};

async function resolveWith(registry: ToolRegistry) {
  return resolveEnvironment({
    settings: { ...defaultSettings(), defaultModel: { providerId: 'p1', model: 'm' } },
    providers,
    registry,
    now: 0,
    planFirst: false,
    maxBytes: 50_000_000,
  });
}

describe('snapshot bounds are checked before digests (spec/001 §5)', () => {
  it('too many tools: refused with no digest computed', async () => {
    const registry = new ToolRegistry();
    for (let i = 0; i < 300; i++) registry.register(testTool(`t${i}`));
    digests.count = 0;
    await expect(resolveWith(registry)).rejects.toThrow(/300 tools are enabled/);
    expect(digests.count).toBe(0);
  });

  it('an oversized or too deeply nested definition: refused with no digest computed', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    for (const extra of [{ description: 'x'.repeat(70 * 1024) }, { inputSchema: deep }]) {
      const registry = new ToolRegistry();
      registry.register(testTool('fine'));
      registry.register({ ...testTool('bad'), ...extra });
      digests.count = 0;
      const err = await resolveWith(registry).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EnvironmentError);
      expect((err as EnvironmentError).code).toBe('too_large');
      expect(digests.count).toBe(0);
    }
  });

  it('within bounds: one digest per tool', async () => {
    const registry = new ToolRegistry();
    registry.register(testTool('a'));
    registry.register(testTool('b'));
    digests.count = 0;
    const env = await resolveWith(registry);
    expect(env.toolCatalog.map((e) => e.name)).toEqual(['a', 'b']);
    expect(digests.count).toBe(2);
  });
});
