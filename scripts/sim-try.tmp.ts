import { generate } from '/work/wt/sim/test/sim/plan';
import { runHistory } from '/work/wt/sim/test/sim/run-history';
const seeds = Number(process.argv[2] ?? 20);
const t0 = performance.now();
let v = 0, k = 0;
const kinds = new Map<string, number>();
for (let s = 1; s <= seeds; s++) {
  const r = await runHistory(generate(s));
  k += r.kills;
  if (r.violations.length) { v++; const m = r.violations[0].message.replace(/[a-z]+_\d+/g, 'ID').replace(/"[^"]*"/g, '"X"').replace(/\d+/g,'N'); kinds.set(m, (kinds.get(m) ?? 0) + 1); if (kinds.get(m) === 1) console.log(s, JSON.stringify(r.violations[0])); }
}
console.log(`${seeds} histories, ${k} kills, ${v} violations in ${((performance.now()-t0)/1000).toFixed(1)}s`);
console.log([...kinds].sort((a,b)=>b[1]-a[1]).map(([m,n])=>`${n}\t${m}`).join('\n'));
process.exit(0);
