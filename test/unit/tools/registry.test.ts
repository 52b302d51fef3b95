import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ToolRegistrationError,
  ToolRegistry,
  catalogOf,
  describeTool,
  toolSpecs,
  type RegisteredTool,
} from '../../../src/tools/registry';
import type { AgentTool, ToolDescriptor } from '../../../src/tools/types';
import { digestOf } from '../../../src/util/canonical-json';

const MCP_BINDING = {
  kind: 'mcp' as const,
  serverId: 'docs',
  endpoint: 'https://mcp.example/mcp',
  authIdentity: 'token:abc',
};

function tool(fields: Partial<AgentTool> = {}): AgentTool {
  return {
    name: 'browser_click',
    label: 'Click element',
    description: 'Click an element by ref.',
    parameters: z.object({ ref: z.string() }),
    level: 'L1',
    effects: 'write',
    execute: async () => ({ content: [] }),
    ...fields,
  } as AgentTool;
}

describe('describeTool defaults', () => {
  it('read → retry-safe, write → never-retry; an explicit recovery wins', () => {
    expect(describeTool(tool({ effects: 'read' })).recovery).toBe('retry-safe');
    expect(describeTool(tool({ effects: 'write' })).recovery).toBe('never-retry');
    expect(describeTool(tool({ effects: 'write', recovery: 'inspect-first' })).recovery).toBe(
      'inspect-first',
    );
    expect(describeTool(tool({ effects: 'read', recovery: 'never-retry' })).recovery).toBe(
      'never-retry',
    );
  });

  it('builtin tools are trusted with provenance "tool"', () => {
    expect(describeTool(tool({ name: 'todo', level: 'builtin', effects: 'read' }))).toMatchObject({
      trusted: true,
      provenance: 'tool',
    });
  });

  it('L0–L2 tools are untrusted page content', () => {
    for (const level of ['L0', 'L1', 'L2'] as const) {
      expect([level, describeTool(tool({ level }))]).toEqual([
        level,
        expect.objectContaining({ trusted: false, provenance: 'page' }),
      ]);
    }
  });

  it('MCP tools are untrusted with provenance "mcp"', () => {
    expect(
      describeTool(tool({ name: 'mcp__docs__search', level: 'mcp', binding: MCP_BINDING })),
    ).toMatchObject({ trusted: false, provenance: 'mcp', binding: MCP_BINDING });
  });

  it('explicit trusted / provenance / visibility / skipApproval are kept', () => {
    const d = describeTool(
      tool({
        level: 'L0',
        effects: 'read',
        trusted: true,
        provenance: 'tool',
        visibility: 'internal',
        skipApproval: true,
      }),
    );
    expect(d).toMatchObject({
      trusted: true,
      provenance: 'tool',
      visibility: 'internal',
      skipApproval: true,
    });
  });

  it('the other defaults: visibility "tool", skipApproval false, local binding, no interactionKind', () => {
    const d = describeTool(tool());
    expect(d).toMatchObject({
      visibility: 'tool',
      skipApproval: false,
      binding: { kind: 'local' },
    });
    expect('interactionKind' in d).toBe(false);
    const withInteraction = describeTool(
      tool({
        level: 'builtin',
        interaction: { kind: 'ask_user', prepare: () => ({}), complete: () => ({ content: [] }) },
      }),
    );
    expect(withInteraction.interactionKind).toBe('ask_user');
  });

  it("generates the input schema from zod, or sends an MCP server's schema verbatim", () => {
    expect(describeTool(tool()).inputSchema).toEqual({
      type: 'object',
      properties: { ref: { type: 'string' } },
      required: ['ref'],
    });
    const schema = {
      type: 'object',
      properties: { q: { type: 'string', minLength: 1 } },
      $defs: {},
    };
    expect(
      describeTool(
        tool({ name: 'mcp__docs__q', level: 'mcp', binding: MCP_BINDING, inputSchema: schema }),
      ).inputSchema,
    ).toEqual(schema);
  });
});

describe('describeTool validation', () => {
  it('an MCP tool must carry an MCP binding', () => {
    expect(() => describeTool(tool({ name: 'mcp__x__y', level: 'mcp' }))).toThrow(
      ToolRegistrationError,
    );
    expect(() =>
      describeTool(tool({ name: 'mcp__x__y', level: 'mcp', binding: { kind: 'local' } })),
    ).toThrow(/MCP binding/);
  });

  it('only MCP tools may use an MCP binding', () => {
    for (const level of ['L0', 'L1', 'L2', 'builtin'] as const) {
      expect(() => describeTool(tool({ level, binding: MCP_BINDING }))).toThrow(/local binding/);
    }
    expect(() => describeTool(tool({ level: 'L1', binding: { kind: 'local' } }))).not.toThrow();
  });

  it('names: 1–64 of [A-Za-z0-9_-]', () => {
    for (const ok of ['a', 'browser_click', 'mcp__docs__search', 'x-y', 'A1', 'n'.repeat(64)]) {
      expect(() => describeTool(tool({ name: ok }))).not.toThrow();
    }
    for (const bad of [
      '',
      'has space',
      'dot.ted',
      'slash/ed',
      'ünïcode',
      'n'.repeat(65),
      'semi;colon',
    ]) {
      expect(() => describeTool(tool({ name: bad }))).toThrow(/invalid tool name/);
    }
  });

  it('a label and a description are required', () => {
    expect(() => describeTool(tool({ label: '  ' }))).toThrow(/label/);
    expect(() => describeTool(tool({ description: '' }))).toThrow(/description/);
  });
});

describe('descriptors are deep-frozen', () => {
  it('no part of a descriptor can be changed', () => {
    const d = describeTool(
      tool({
        name: 'mcp__docs__q',
        level: 'mcp',
        binding: MCP_BINDING,
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      }),
    );
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.binding)).toBe(true);
    expect(Object.isFrozen(d.inputSchema)).toBe(true);
    expect(Object.isFrozen((d.inputSchema.properties as Record<string, unknown>).q)).toBe(true);
    expect(() => {
      (d as { effects: string }).effects = 'read';
    }).toThrow(TypeError);
    expect(() => {
      (d.inputSchema.properties as Record<string, { type: string }>).q.type = 'number';
    }).toThrow(TypeError);
    expect(d.effects).toBe('write');
  });

  it('registered entries are frozen too', () => {
    const reg = new ToolRegistry();
    reg.register(tool());
    const entry = reg.get('browser_click')!;
    expect(Object.isFrozen(entry)).toBe(true);
    expect(() => {
      (entry as { descriptor: unknown }).descriptor = null;
    }).toThrow(TypeError);
  });
});

describe('ToolRegistry', () => {
  it('refuses a conflicting registration with a message that names both descriptors', () => {
    const reg = new ToolRegistry();
    reg.register(tool({ level: 'L1', effects: 'read' }));
    let err: unknown;
    try {
      reg.register(tool({ level: 'L2', effects: 'write' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolRegistrationError);
    const msg = (err as Error).message;
    expect(msg).toContain('browser_click');
    expect(msg).toContain('level=L1 effects=read recovery=retry-safe binding=local');
    expect(msg).toContain('level=L2 effects=write recovery=never-retry binding=local');
    // The first registration stays.
    expect(reg.get('browser_click')!.descriptor.level).toBe('L1');
  });

  it('names the MCP binding in conflict summaries', () => {
    const reg = new ToolRegistry();
    reg.register(tool({ name: 'mcp__docs__q', level: 'mcp', binding: MCP_BINDING }));
    expect(() =>
      reg.register(
        tool({
          name: 'mcp__docs__q',
          level: 'mcp',
          binding: { ...MCP_BINDING, endpoint: 'https://other.example/mcp' },
        }),
      ),
    ).toThrow(/mcp:docs@https:\/\/mcp\.example\/mcp.*mcp:docs@https:\/\/other\.example\/mcp/);
  });

  it('replace: true swaps the tool', () => {
    const reg = new ToolRegistry();
    reg.register(tool({ label: 'Old' }));
    reg.register(tool({ label: 'New' }), { replace: true });
    expect(reg.get('browser_click')!.descriptor.label).toBe('New');
    expect(reg.list()).toHaveLength(1);
  });

  it('the generation counter moves on every mutation and only then', () => {
    const reg = new ToolRegistry();
    expect(reg.generation).toBe(0);
    reg.register(tool({ name: 'a' }));
    expect(reg.generation).toBe(1);
    expect(() => reg.register(tool({ name: 'a' }))).toThrow();
    expect(reg.generation).toBe(1);
    reg.register(tool({ name: 'a', label: 'A2' }), { replace: true });
    expect(reg.generation).toBe(2);
    expect(reg.unregister('missing')).toBe(false);
    expect(reg.generation).toBe(2);
    reg.register(tool({ name: 'mcp__s__x', level: 'mcp', binding: MCP_BINDING }));
    reg.register(tool({ name: 'mcp__s__y', level: 'mcp', binding: MCP_BINDING }));
    expect(reg.generation).toBe(4);
    reg.unregisterPrefix('mcp__s__');
    expect(reg.generation).toBeGreaterThan(4);
    expect(reg.list().map((t) => t.tool.name)).toEqual(['a']);
    const g = reg.generation;
    expect(reg.unregister('a')).toBe(true);
    expect(reg.generation).toBe(g + 1);
  });

  it('snapshot is a stable view: later changes do not show in it', () => {
    const reg = new ToolRegistry();
    reg.register(tool({ name: 'a' }));
    const snap = reg.snapshot();
    reg.register(tool({ name: 'b' }));
    reg.register(tool({ name: 'a', label: 'changed' }), { replace: true });
    expect([...snap.keys()]).toEqual(['a']);
    expect(snap.get('a')!.descriptor.label).toBe('Click element');
  });
});

describe('catalog digests', () => {
  const entry = (descriptor: ToolDescriptor): RegisteredTool => ({ tool: tool(), descriptor });

  it('one SHA-256 per descriptor, sorted by name', async () => {
    const cat = await catalogOf([
      entry(describeTool(tool({ name: 'zeta' }))),
      entry(describeTool(tool({ name: 'alpha' }))),
    ]);
    expect(cat.map((e) => e.name)).toEqual(['alpha', 'zeta']);
    for (const e of cat) expect(e.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(cat[0].digest).not.toBe(cat[1].digest);
    expect(toolSpecs(cat)).toEqual(
      cat.map((e) => ({
        name: e.name,
        description: e.descriptor.description,
        inputSchema: e.descriptor.inputSchema,
      })),
    );
  });

  it('is stable across key order and across registrations of the same tool', async () => {
    const d = describeTool(tool());
    const reversed = Object.fromEntries(
      Object.entries(structuredClone(d)).reverse(),
    ) as unknown as ToolDescriptor;
    (reversed as { inputSchema: Record<string, unknown> }).inputSchema = Object.fromEntries(
      Object.entries(d.inputSchema).reverse(),
    );
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(d));
    const [a] = await catalogOf([entry(d)]);
    const [b] = await catalogOf([entry(reversed)]);
    const [c] = await catalogOf([entry(describeTool(tool()))]);
    expect(b.digest).toBe(a.digest);
    expect(c.digest).toBe(a.digest);
  });

  it('changes when any field of the descriptor changes', async () => {
    const base = describeTool(tool());
    const baseDigest = await digestOf(base);
    const variants: Partial<Record<keyof ToolDescriptor, unknown>> = {
      name: 'browser_click2',
      label: 'Click!',
      description: 'Click an element by its ref.',
      inputSchema: { ...base.inputSchema, required: [] },
      level: 'L2',
      effects: 'read',
      recovery: 'retry-safe',
      visibility: 'internal',
      trusted: true,
      provenance: 'tool',
      binding: MCP_BINDING,
      skipApproval: true,
      interactionKind: 'elicitation',
    };
    const seen = new Set([baseDigest]);
    for (const [field, value] of Object.entries(variants)) {
      const changed = { ...structuredClone(base), [field]: value };
      const digest = await digestOf(changed);
      expect([field, seen.has(digest)]).toEqual([field, false]);
      seen.add(digest);
    }
    // Every descriptor field is covered by the list above.
    expect(Object.keys(base).filter((k) => !(k in variants))).toEqual([]);
  });
});
