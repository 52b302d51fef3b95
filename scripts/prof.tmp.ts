import { generate } from '/work/wt/sim/test/sim/plan';
import { runHistory } from '/work/wt/sim/test/sim/run-history';
for (let s = 1; s <= 60; s++) await runHistory(generate(s));
process.exit(0);
