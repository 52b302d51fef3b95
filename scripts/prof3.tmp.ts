import { generate } from '/work/wt/sim/test/sim/plan';
import { runHistory } from '/work/wt/sim/test/sim/run-history';
await runHistory(generate(999));
const c0 = process.cpuUsage(); const t0 = performance.now();
for (let s = 1; s <= 40; s++) await runHistory(generate(s));
const c = process.cpuUsage(c0);
console.log('wall', (performance.now()-t0).toFixed(0), 'cpu', ((c.user+c.system)/1000).toFixed(0));
process.exit(0);
