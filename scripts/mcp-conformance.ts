/**
 * `npm run conformance:mcp`: every client scenario of the pinned MCP conformance suite
 * (@modelcontextprotocol/conformance, as its own `list` command reports them) against Keel's MCP
 * client (scripts/mcp-conformance-client.ts, the same src/tools/mcp code the extension runs).
 * Prints one line per scenario, then exactly `N passed, M failed`; exits 1 on any failure.
 *
 *   npx tsx scripts/mcp-conformance.ts [--only SUBSTRING] [--jobs N] [--verbose]
 *
 * A scenario passes when the runner reports no failed check, no warning and a clean client exit
 * ("OVERALL: PASSED").
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const runner = resolve(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const client = `${process.execPath} ${resolve(root, 'node_modules/tsx/dist/cli.mjs')} ${resolve(root, 'scripts/mcp-conformance-client.ts')}`;

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  /** Passed only when run again alone (a timing check, e.g. sse-retry, on a loaded machine). */
  retried?: boolean;
  /** `Passed: a/b, c failed, d warnings`, or why there is no summary. */
  summary: string;
  output: string;
}

/** The client scenarios the installed suite lists (its `list` output, "Client scenarios" part). */
export async function listClientScenarios(): Promise<string[]> {
  const { stdout } = await run(process.execPath, [runner, 'list'], { cwd: root });
  const part = stdout.split(/Client scenarios[^\n]*\n/)[1] ?? '';
  const names = [...part.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1]);
  if (names.length === 0)
    throw new Error(`no client scenarios in the conformance suite's list:\n${stdout}`);
  return names;
}

export async function runScenario(scenario: string): Promise<ScenarioResult> {
  const args = [
    runner,
    'client',
    '--command',
    client,
    '--scenario',
    scenario,
    '--timeout',
    '30000',
  ];
  const res = await run(process.execPath, args, {
    cwd: root,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => ({
    stdout: e.stdout ?? '',
    stderr: `${e.stderr ?? ''}\n${e.message}`,
  }));
  // The runner prints its checks on stdout and its summary on stderr.
  const output = `${res.stdout}\n${res.stderr}`;
  const summary =
    /Passed: \d+\/\d+, \d+ failed, \d+ warnings/.exec(output)?.[0] ??
    'no summary (the runner did not finish)';
  const passed = /OVERALL: PASSED/.test(output) && /, 0 failed, 0 warnings/.test(summary);
  return { scenario, passed, summary, output };
}

/**
 * Runs `scenarios` with at most `jobs` at a time; results in list order. A scenario that fails is
 * run once more, alone, after the others: `sse-retry` times the client's reconnection against the
 * server's `retry:` and warns when it is late, which a loaded CI machine can cause by itself. Such
 * a pass is marked `retried` (and printed as such); a second failure is a failure.
 */
export async function runAll(
  scenarios: string[],
  jobs: number,
  onResult?: (r: ScenarioResult) => void,
): Promise<ScenarioResult[]> {
  const results = await runPool(scenarios, jobs, onResult);
  for (let i = 0; i < results.length; i++) {
    if (results[i].passed) continue;
    const again = await runScenario(scenarios[i]);
    if (again.passed)
      results[i] = {
        ...again,
        retried: true,
        output: `${results[i].output}\n--- run again alone ---\n${again.output}`,
      };
  }
  return results;
}

async function runPool(
  scenarios: string[],
  jobs: number,
  onResult?: (r: ScenarioResult) => void,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const i = next++;
      results[i] = await runScenario(scenarios[i]);
      onResult?.(results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, scenarios.length)) }, worker));
  return results;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const only = opt('--only');
  const jobs = Number(opt('--jobs') ?? 2);
  const verbose = argv.includes('--verbose');
  const scenarios = (await listClientScenarios()).filter((s) => !only || s.includes(only));
  const results = await runAll(scenarios, jobs);
  const width = Math.max(...results.map((r) => r.scenario.length));
  for (const r of results) {
    console.log(
      `${r.passed ? 'pass' : 'FAIL'}  ${r.scenario.padEnd(width)}  ${r.summary}${r.retried ? '  (failed once when run in parallel, passed alone)' : ''}`,
    );
    if (!r.passed && verbose) console.log(r.output.slice(-6000));
  }
  const failed = results.filter((r) => !r.passed).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed > 0 || results.length === 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      console.log('0 passed, 1 failed');
      process.exit(1);
    },
  );
}
