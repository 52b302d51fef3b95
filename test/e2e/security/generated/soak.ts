/**
 * `npm run test:attacks -- --count N --seed S [--replay SEED …] [--no-shrink] [--quiet]`:
 * a soak of generated attacks against the built extension (`npm run build` first; KEEL_E2E_DIST
 * chooses another build). Prints `N attacks, B breaches`, the classes, and each breach with its
 * seed and shrunk page. Exits 1 when anything breached.
 */
import { closeSharedBrowser } from '../../harness/shared-browser';
import { startCorpusSession } from './corpus-session';
import { describeAttack } from './attack';
import { classesOf } from './oracle';
import { formatReport, runSample } from './run-sample';

function parse(argv: string[]) {
  const out = {
    count: 50,
    seed: 1,
    seeds: [] as number[],
    shrink: Number.POSITIVE_INFINITY,
    quiet: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--count') out.count = Number(argv[++i]);
    else if (a === '--seed') out.seed = Number(argv[++i]);
    else if (a === '--replay') out.seeds.push(Number(argv[++i]));
    else if (a === '--no-shrink') out.shrink = 0;
    else if (a === '--quiet') out.quiet = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(out.count) || out.count < 1)
    throw new Error('--count must be a positive integer');
  return out;
}

const args = parse(process.argv.slice(2));
const session = await startCorpusSession();
const started = Date.now();
try {
  const report = await runSample(session, {
    count: args.count,
    seed: args.seed,
    seeds: args.seeds.length ? args.seeds : undefined,
    shrink: args.shrink,
    onOutcome: (o, n) => {
      if (args.quiet) return;
      const cls =
        classesOf(o.breaches).join(',') || (o.error ? 'error' : o.acted ? 'safe' : 'inert');
      console.error(`[${n + 1}] ${cls.padEnd(12)} ${describeAttack(o.attack)}`);
    },
  });
  console.log(formatReport(report, 'npm run test:attacks --'));
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
  process.exitCode = report.breaches.length ? 1 : 0;
} finally {
  await session.close();
  // The session leased the shared browser (test/e2e/harness/shared-browser.ts); under vitest the
  // run's teardown closes it, here nothing else would, and the process would never exit.
  await closeSharedBrowser();
}
