import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Structure rules of src/engine (STYLE.md 4–5, issue 12): no import cycles — type-only imports
 * included, so the handlers depend on the narrow EngineHost, never back on engine-core — and no
 * writes through the raw Dexie database (`store.db`): every access goes through a repository.
 */

const ROOT = resolve(__dirname, '../../../src');
const MAX_POSITIONAL = 5;
/** The engine's rooms, lowest first: a file may import only from its own room or lower ones. */
const LAYERS = [
  'host',
  'env',
  'context',
  'views',
  'run',
  'model',
  'call',
  'workflow',
  'turn',
  'ops',
];
const ENGINE = join(ROOT, 'engine');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesUnder(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** Relative imports and re-exports of a file, resolved to files (`./x` → `./x.ts` or `./x/index.ts`). */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g)) {
    const base = resolve(dirname(file), m[1]);
    for (const cand of [`${base}.ts`, join(base, 'index.ts')]) {
      try {
        readFileSync(cand);
        out.push(cand);
        break;
      } catch {
        // not this one
      }
    }
  }
  return out;
}

/**
 * Functions of a source text with their positional parameter counts: declarations, methods and
 * arrow functions bound to a name. Commas nested in types, defaults or destructuring don't count.
 */
function parameterCounts(src: string): { name: string; count: number }[] {
  const out: { name: string; count: number }[] = [];
  const starts =
    /(?:function\s*\*?\s*(\w+)\s*(?:<[^>(]*>)?\s*\(|(?:const|let)\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s*)?\(|^\s*(?:(?:public|private|protected|static|async|readonly)\s+)*(\w+)\s*\()/gm;
  for (const m of src.matchAll(starts)) {
    const name = m[1] ?? m[2] ?? m[3];
    if (['if', 'for', 'while', 'switch', 'catch', 'return', 'await'].includes(name)) continue;
    let depth = 0;
    let commas = 0;
    let content = false;
    let i = (m.index ?? 0) + m[0].length;
    for (; i < src.length; i++) {
      const ch = src[i];
      if ('([{<'.includes(ch)) depth++;
      else if (')]}>'.includes(ch) && !(ch === '>' && src[i - 1] === '=')) {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) {
        // A trailing comma before ')' is not another parameter.
        if (/^\s*\)/.test(src.slice(i + 1, i + 40))) continue;
        commas++;
      } else if (!/\s/.test(ch)) content = true;
    }
    // A method body's opening `)` is followed by `:` or `{`: calls (`foo(a, b);`) are skipped.
    const after = src.slice(i + 1, i + 3).trimStart();
    if (m[3] && !after.startsWith(':') && !after.startsWith('{')) continue;
    if (m[2] && !/^\s*(?::[^=]*)?=>/.test(src.slice(i + 1, i + 200)) && !after.startsWith(':'))
      continue;
    out.push({ name, count: content ? commas + 1 : 0 });
  }
  return out;
}

/** Every cycle reachable in the import graph restricted to `files`, as readable paths. */
// biome-ignore lint/suspicious/noExportsInTest: the checker is tested on a planted cycle below.
export function findCycles(files: string[]): string[][] {
  const inSet = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((x) => inSet.has(x))]));
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open')
        cycles.push([...stack.slice(stack.indexOf(g)), g].map((x) => relative(ROOT, x)));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

describe('src/engine structure', () => {
  it('has no import cycles (type-only imports included)', () => {
    expect(findCycles(filesUnder(ENGINE))).toEqual([]);
  });

  it('the cycle finder finds a cycle when there is one (type-only edges count)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keel-cycles-'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
    writeFileSync(
      join(dir, 'b.ts'),
      "import type { C } from './c';\nexport const b = 1 as unknown as C;\n",
    );
    writeFileSync(join(dir, 'c.ts'), "export type { A as C } from './a';\n");
    const cycles = findCycles(['a.ts', 'b.ts', 'c.ts'].map((f) => join(dir, f)));
    expect(cycles.map((c) => c.map((f) => f.split(/[\\/]/).pop()))).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
    ]);
  });

  it('only moveRun (run/run-edges.ts) assigns a run state', () => {
    // A tool_call item's state (`item.state`, `it.state`) is the card's, not the run's.
    const writer = join(ENGINE, 'run', 'run-edges.ts');
    const offenders = filesUnder(ENGINE).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => /\.state\s*=(?!=)/.test(l) && !/\b(item|it)\.state\s*=/.test(l))
        .filter((l) => f !== writer || !/^\s*run\.state = to;$/.test(l))
        .map((l) => `${relative(ROOT, f)}: ${l.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it('no engine function takes more than 5 positional parameters (an options object instead)', () => {
    const long = filesUnder(ENGINE).flatMap((f) =>
      parameterCounts(readFileSync(f, 'utf8'))
        .filter((p) => p.count > MAX_POSITIONAL)
        .map((p) => `${relative(ROOT, f)}: ${p.name} (${p.count})`),
    );
    expect(long).toEqual([]);
    const all = filesUnder(ENGINE).flatMap((f) => parameterCounts(readFileSync(f, 'utf8')));
    // The counter sees the engine's functions (a broken pattern would pass vacuously).
    expect(all.length).toBeGreaterThan(200);
    expect(
      parameterCounts('export async function f(a: A, b: { c: (d, e) => void }, g = [1, 2]) {}'),
    ).toEqual([{ name: 'f', count: 3 }]);
  });

  it('imports point down the layers (host < env < context < views < run < model < call < workflow < turn < ops < the top)', () => {
    const rank = (f: string) => {
      const room = relative(ENGINE, f).split(/[\\/]/);
      return room.length === 1 ? LAYERS.length : LAYERS.indexOf(room[0]);
    };
    const upward: string[] = [];
    for (const f of filesUnder(ENGINE))
      for (const g of importsOf(f).filter((x) => x.startsWith(ENGINE)))
        if (rank(g) > rank(f)) upward.push(`${relative(ENGINE, f)} → ${relative(ENGINE, g)}`);
    expect(filesUnder(ENGINE).map(rank)).not.toContain(-1);
    expect(upward).toEqual([]);
  });

  it("a committed node reaches clients only through a commit's outbox (host/outbox.ts)", () => {
    // `item.complete` says "this node is stored": only the outbox, sent after its commit, builds it.
    const outbox = join(ENGINE, 'host', 'outbox.ts');
    const offenders = filesUnder(ENGINE).filter(
      (f) => f !== outbox && /['"]item\.complete['"]/.test(readFileSync(f, 'utf8')),
    );
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('no engine module writes through the raw database (store.db)', () => {
    const offenders = filesUnder(ENGINE).filter((f) =>
      /\bstore\.db\b|ctx\.store\.db\b/.test(readFileSync(f, 'utf8')),
    );
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
