/**
 * Tools on demand (docs/tools.md): a request offers the catalog's always-offered tools, then
 * load_tools with its fixed list, then what the context loaded or called, then page tools — and
 * nothing else decides it. Checked as properties over generated catalogs and histories, and in a
 * run against what the provider was actually sent.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { offeredTools } from '../../../src/engine/model/offered-tools';
import type { ProviderMessage } from '../../../src/providers/types';
import type { ToolCatalogEntry } from '../../../src/store/records';
import {
  LOAD_TOOLS,
  LOAD_TOOLS_DESCRIPTION,
  loadAnswer,
} from '../../../src/tools/builtin/load-tools';
import { describeTool } from '../../../src/tools/registry';
import type { AgentTool } from '../../../src/tools/types';
import { Rng } from '../../sim/rng';
import { makeRig } from './harness';

const tool = (name: string, extra: Partial<AgentTool> = {}): AgentTool => ({
  name,
  label: name,
  description: `The ${name} tool.`,
  parameters: z.object({}),
  level: 'L0',
  effects: 'read',
  async execute() {
    return { content: [{ type: 'text', text: `${name} ran` }] };
  },
  ...extra,
});

const entry = (t: AgentTool): ToolCatalogEntry => ({
  name: t.name,
  digest: t.name,
  descriptor: describeTool(t),
});

const loader = entry(tool(LOAD_TOOLS, { level: 'builtin', description: LOAD_TOOLS_DESCRIPTION }));

function pageTool(name: string): AgentTool {
  return tool(name, {
    level: 'L1',
    effects: 'write',
    provenance: 'page',
    binding: { kind: 'page', origin: 'https://a.example', pageTool: name, readOnlyHint: false },
  });
}

/** A random catalog (sorted by name, page tools at the end, as runs hold it) and its parts. */
function genCatalog(rng: Rng) {
  const always = Array.from({ length: rng.int(0, 6) }, (_, i) => `a${i}`);
  const rare = Array.from({ length: rng.int(0, 6) }, (_, i) => `r${i}`);
  const pages = Array.from({ length: rng.int(0, 2) }, (_, i) => `page_${i}`);
  const withLoader = rng.chance(0.85);
  const sorted = [
    ...always.map((n) => entry(tool(n))),
    ...rare.map((n) => entry(tool(n, { onDemand: { brief: `brief of ${n}` } }))),
    ...(withLoader ? [loader] : []),
  ].sort((a, b) => a.name.localeCompare(b.name));
  return {
    catalog: [...sorted, ...pages.map((n) => entry(pageTool(n)))],
    always,
    rare,
    pages,
    withLoader,
  };
}

/** A random context: calls of known and unknown tools, loads naming a few. */
function genMessages(rng: Rng, names: string[]): ProviderMessage[] {
  const out: ProviderMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  for (let i = rng.int(0, 6); i > 0; i--) {
    const calls = Array.from({ length: rng.int(0, 2) }, (_, j) => {
      const id = `c${i}_${j}`;
      if (rng.chance(0.4))
        return {
          id,
          name: LOAD_TOOLS,
          args: rng.chance(0.9)
            ? { names: Array.from({ length: rng.int(1, 3) }, () => rng.pick([...names, 'nope'])) }
            : 'garbage',
        };
      return { id, name: rng.pick([...names, 'unknown_tool']), args: {} };
    });
    out.push({ role: 'assistant', text: '', toolCalls: calls });
    for (const c of calls)
      out.push({ role: 'tool', toolCallId: c.id, toolName: c.name, content: [], isError: false });
  }
  return out;
}

/** What the context wanted, by the definition in docs/tools.md (written independently here). */
function wantedIn(messages: ProviderMessage[]): Set<string> {
  const s = new Set<string>();
  for (const m of messages)
    if (m.role === 'assistant')
      for (const c of m.toolCalls)
        if (c.name !== LOAD_TOOLS) s.add(c.name);
        else for (const n of (c.args as { names?: string[] })?.names ?? []) s.add(n);
  return s;
}

describe('offeredTools (generated)', () => {
  it('offers always-tools, the loader with its fixed list, what the context wanted, then page tools', () => {
    const seed = 26_0301;
    const rng = new Rng(seed);
    let loadedSeen = 0;
    for (let i = 0; i < 3000; i++) {
      const g = genCatalog(rng);
      const names = g.catalog.map((e) => e.name);
      const m1 = genMessages(rng, names);
      const m2 = [...m1, ...genMessages(rng, names).slice(1)];
      const o1 = offeredTools(g.catalog, m1).map((t) => t.name);
      const o2 = offeredTools(g.catalog, m2);
      const n2 = o2.map((t) => t.name);
      const ctx = `seed ${seed}, case ${i}`;
      expect(new Set(n2).size, ctx).toBe(n2.length);
      if (!g.withLoader || !g.rare.length) {
        // Nothing to load (or no way to load it): everything but the loader, in catalog order.
        expect(n2, ctx).toEqual(names.filter((n) => n !== LOAD_TOOLS));
        continue;
      }
      const wanted = wantedIn(m2);
      const expected = new Set([
        ...g.always,
        LOAD_TOOLS,
        ...g.rare.filter((n) => wanted.has(n)),
        ...g.pages,
      ]);
      expect(new Set(n2), ctx).toEqual(expected);
      expect(n2.slice(n2.length - g.pages.length), ctx).toEqual(g.pages);
      expect(n2.slice(0, g.always.length + 1), ctx).toEqual([...g.always, LOAD_TOOLS]);
      // A longer context only appends before the page tools: the cached prefix survives.
      const head1 = o1.filter((n) => !n.startsWith('page_'));
      expect(n2.slice(0, head1.length), ctx).toEqual(head1);
      // The loader's list names every on-demand tool, the same whatever the context.
      const desc = o2.find((t) => t.name === LOAD_TOOLS)!.description;
      for (const r of g.rare) expect(desc, ctx).toContain(`- ${r}: brief of ${r}`);
      expect(desc, ctx).toBe(
        offeredTools(g.catalog, []).find((t) => t.name === LOAD_TOOLS)!.description,
      );
      if (n2.some((n) => n.startsWith('r'))) loadedSeen++;
    }
    expect(loadedSeen).toBeGreaterThan(500);
  });
});

describe('load_tools answers', () => {
  const catalog = [entry(tool('a0')), entry(tool('r0', { onDemand: { brief: 'rare' } })), loader];
  it('names what it loaded, what was already offered and what it does not know', () => {
    expect(loadAnswer(catalog, ['r0', 'a0', 'zz', 'r0'])).toBe(
      'Loaded: r0. Call them from your next step. Already offered: a0. Not known: zz (tools you can load: r0).',
    );
  });
  it('is an error when nothing it named exists', () => {
    expect(() => loadAnswer(catalog, ['zz', LOAD_TOOLS])).toThrow(
      'No tool is called "zz", "load_tools". Tools you can load: r0.',
    );
  });
});

describe('tools on demand in a run', () => {
  const names = (r: { tools?: { name: string }[] }) => (r.tools ?? []).map((t) => t.name);
  const rare = tool('rare_probe', { onDemand: { brief: 'a probe seldom needed' } });

  it('a load offers the tool from the next request on, and it stays offered in later turns', async () => {
    const rig = await makeRig({
      tools: [tool('probe'), rare],
      script: [
        { toolCalls: [{ name: LOAD_TOOLS, args: { names: ['rare_probe'] } }] },
        { toolCalls: [{ name: 'rare_probe', args: {} }] },
        { text: 'done' },
        { text: 'again' },
      ],
    });
    const { runId } = await rig.submit('go');
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('end');
    const [first, second, third] = rig.provider.requests;
    expect(names(first)).toContain('probe');
    expect(names(first)).not.toContain('rare_probe');
    const listed = first.tools.find((t) => t.name === LOAD_TOOLS)!.description;
    expect(listed).toContain('- rare_probe: a probe seldom needed');
    expect(names(second)).toEqual([...names(first), 'rare_probe']);
    expect(JSON.stringify(second.messages)).toContain('Loaded: rare_probe.');
    expect(JSON.stringify(third.messages)).toContain('rare_probe ran');
    // The next turn of the thread still has the load in its context.
    const threadId = (await rig.store.runs.get(runId))!.threadId;
    const next = await rig.submit('more', threadId);
    await rig.client.turnComplete(next.runId);
    expect(names(rig.provider.requests.at(-1)!)).toEqual(names(second));
  });

  it('a tool called without loading runs, and is offered from then on', async () => {
    const rig = await makeRig({
      tools: [tool('probe'), rare],
      script: [{ toolCalls: [{ name: 'rare_probe', args: {} }] }, { text: 'done' }],
    });
    const { runId } = await rig.submit('go');
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('end');
    const [first, second] = rig.provider.requests;
    expect(names(first)).not.toContain('rare_probe');
    expect(JSON.stringify(second.messages)).toContain('rare_probe ran');
    expect(names(second).at(-1)).toBe('rare_probe');
  });

  it('a catalog without on-demand tools offers no load_tools', async () => {
    const rig = await makeRig({ tools: [tool('probe')], script: [{ text: 'hi' }] });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(names(rig.provider.requests[0])).not.toContain(LOAD_TOOLS);
  });
});
