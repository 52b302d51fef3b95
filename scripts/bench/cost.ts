/**
 * Cost benchmark (issue 17): the same scripted 30-step turn under Keel's clipping policy and two
 * baselines measured in the same run — no clipping, and clip-every-step (the policy before: all
 * but the newest 6 results clipped, one more each step). For each provider's request shape it
 * reports the prefix reuse of the serialized request bodies (what the SDKs send), the input
 * tokens, the share read from the cache and the $ at catalog prices under each provider's cache
 * rules (cost-measure.ts). A sweep of the batch size shows where the threshold comes from.
 * Pure computation: no browser, no network; deterministic.
 */
import {
  clipPolicyFor,
  DEFAULT_CLIP_POLICY,
  type ClipPolicy,
} from '../../src/engine/context/context-clipping';
import type { ContextOptions } from '../../src/engine/context/context-builder';
import { lookupModel } from '../../src/providers/catalog';
import { cacheCost, prefixReuse, type CostFigures, type ReuseFigures } from './cost-measure';
import {
  BENCH_TASK,
  realPrompt,
  requestBodies,
  SHAPE_MODELS,
  taskPaths,
  type RequestShape,
  type TaskShape,
} from './cost-task';
import { round, type BenchResult, type SummaryRow } from './stats';

/** Output tokens of each step's assistant message (the same under every policy). */
const OUTPUT_TOKENS = 120;

export interface PolicyFigures {
  reuse: ReuseFigures;
  cost: CostFigures;
}

function contextFor(shape: RequestShape, truncate: ClipPolicy | undefined): ContextOptions {
  return { vision: true, providerKind: shape, ...(truncate ? { truncate } : {}) };
}

export const POLICIES = (window: number): Record<string, ClipPolicy | undefined> => ({
  keel: clipPolicyFor(window),
  'no clipping': undefined,
  'clip every step': { ...DEFAULT_CLIP_POLICY, batchTokens: 0 },
});

export async function measureTask(
  task: TaskShape,
  shape: RequestShape,
  policy: ClipPolicy | undefined,
): Promise<PolicyFigures> {
  const prompt = await realPrompt();
  const bodies = requestBodies(taskPaths(task), shape, contextFor(shape, policy), prompt);
  const info = lookupModel(SHAPE_MODELS[shape]);
  return {
    reuse: prefixReuse(bodies),
    cost: cacheCost(
      bodies,
      shape === 'anthropic' ? 'anthropic' : 'openai',
      info.pricing!,
      OUTPUT_TOKENS,
    ),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const usd = (x: number) => `$${x.toFixed(3)}`;

/** The task lengths measured: the 30 steps, and two and three times that (where batches pay). */
const LENGTHS = [BENCH_TASK.steps, 2 * BENCH_TASK.steps, 3 * BENCH_TASK.steps];

export async function benchCost(): Promise<BenchResult> {
  const shapes: RequestShape[] = ['anthropic', 'openai', 'openai-responses'];
  const data: Record<string, unknown> = {
    task: BENCH_TASK,
    lengths: LENGTHS,
    outputTokensPerStep: OUTPUT_TOKENS,
    models: SHAPE_MODELS,
  };
  const rows: SummaryRow[] = [];
  const results: Record<string, Record<string, PolicyFigures>> = {};
  for (const steps of LENGTHS) {
    for (const shape of shapes) {
      const key = `${shape}, ${steps} steps`;
      const window = lookupModel(SHAPE_MODELS[shape]).contextWindow;
      results[key] = {};
      for (const [name, policy] of Object.entries(POLICIES(window)))
        results[key][name] = await measureTask({ ...BENCH_TASK, steps }, shape, policy);
      // The Responses shape measures like Chat Completions: its figures are in the JSON only.
      if (shape === 'openai-responses') continue;
      const keel = results[key].keel;
      rows.push({
        metric: `cost ${key}: prefix reuse mean (worst)`,
        value: `${pct(keel.reuse.mean)} (${pct(keel.reuse.worst)})`,
        baseline: `${pct(results[key]['clip every step'].reuse.mean)} (${pct(results[key]['clip every step'].reuse.worst)}) clip every step`,
        ratio: `${(keel.reuse.mean / results[key]['clip every step'].reuse.mean).toFixed(2)}×`,
        target: '≥ 98 %',
        ok: keel.reuse.mean >= 0.98,
      });
      // Past 30 steps the summary keeps the comparison that changes: against no clipping.
      for (const base of steps > BENCH_TASK.steps
        ? ['no clipping']
        : ['no clipping', 'clip every step']) {
        const b = results[key][base];
        // Within 30 steps no batch is due yet: Keel sends what no clipping sends, at the same cost.
        const strict = base === 'clip every step' || steps > BENCH_TASK.steps;
        rows.push({
          metric: `cost ${key}: $ vs ${base}`,
          value: `${usd(keel.cost.usd)} (cached ${pct(keel.cost.cachedShare)}, ${kTokens(keel.cost.inputTokens)} in)`,
          baseline: `${usd(b.cost.usd)} (cached ${pct(b.cost.cachedShare)}, ${kTokens(b.cost.inputTokens)} in)`,
          ratio: `${(keel.cost.usd / b.cost.usd).toFixed(2)}×`,
          target: strict ? '< 1×' : '≤ 1×',
          ok: strict ? keel.cost.usd < b.cost.usd : keel.cost.usd <= b.cost.usd * 1.0001,
        });
      }
    }
  }
  data.results = Object.fromEntries(
    Object.entries(results).map(([key, byPolicy]) => [
      key,
      Object.fromEntries(
        Object.entries(byPolicy).map(([name, f]) => [
          name,
          {
            prefixReuseMean: round(f.reuse.mean, 4),
            prefixReuseWorst: round(f.reuse.worst, 4),
            edits: f.reuse.edits,
            ...f.cost,
            usd: round(f.cost.usd, 4),
            cachedShare: round(f.cost.cachedShare, 4),
          },
        ]),
      ),
    ]),
  );
  data.sweep = await sweep();
  return { name: 'cost', file: 'cost.json', data, rows };
}

const kTokens = (n: number) => `${Math.round(n / 1000)}k`;

const SWEEP_STEPS = (process.env.KEEL_COST_SWEEP_STEPS ?? '30,60,90').split(',').map(Number);
const SWEEP_BATCHES = [0, 8_000, 16_000, 32_000, 64_000, 80_000, 100_000, Infinity];

/** Batch sizes against task lengths: $ and mean reuse, for the threshold's choice. */
async function sweep(): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const steps of SWEEP_STEPS) {
    for (const shape of ['anthropic', 'openai'] as const) {
      for (const batch of SWEEP_BATCHES) {
        const policy =
          batch === Infinity ? undefined : { ...DEFAULT_CLIP_POLICY, batchTokens: batch };
        const f = await measureTask({ ...BENCH_TASK, steps }, shape, policy);
        out.push({
          steps,
          shape,
          batchTokens: batch === Infinity ? 'none' : batch,
          usd: round(f.cost.usd, 4),
          reuseMean: round(f.reuse.mean, 4),
          edits: f.reuse.edits,
          inputTokens: f.cost.inputTokens,
        });
      }
    }
  }
  return out;
}

// `npx tsx scripts/bench/cost.ts`: this benchmark alone, with its tables.
if (process.argv[1]?.endsWith('cost.ts')) {
  void benchCost().then((r) => {
    for (const row of r.rows)
      console.log(`${row.metric}: ${row.value} | baseline ${row.baseline} | ${row.ratio}`);
    console.log(JSON.stringify(r.data.results, null, 1));
    console.table(r.data.sweep as Record<string, unknown>[]);
  });
}
