import { generate } from '/work/wt/sim/test/sim/plan';
import { runHistory } from '/work/wt/sim/test/sim/run-history';
const orig = globalThis.setTimeout;
const seen = new Map<string, number>();
(globalThis as any).setTimeout = (fn: any, ms: number, ...a: any[]) => {
  const k = `${ms} ${new Error().stack!.split('\n').slice(2, 5).map(s=>s.trim()).join(' | ')}`;
  seen.set(k, (seen.get(k) ?? 0) + 1);
  return orig(fn, ms, ...a);
};
const t0 = performance.now();
for (let s = 1; s <= 20; s++) await runHistory(generate(s));
console.log((performance.now()-t0).toFixed(0), 'ms');
for (const [k, n] of [...seen].sort((a,b)=>b[1]-a[1]).slice(0,10)) console.log(n, k);
process.exit(0);
