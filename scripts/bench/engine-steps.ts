/**
 * Engine step overhead: one turn of N tool steps with a model that answers instantly and a tool
 * that does nothing, so what remains is the engine (commits, reads, events, context building, and
 * in Chromium the worker's fetch of the model stream).
 *
 * Baselines, same run, same realm: the IndexedDB transactions of a turn of the same shape are
 * recorded (idb-probe.js) and replayed as bare IndexedDB calls on a fresh database with the same
 * schema:
 * - "same transactions": every transaction with the same reads and writes (the IndexedDB work
 *   the engine does, without Dexie, zod, events, context building);
 * - "commits only": the read-write transactions with their writes (what a step must commit).
 * Engine turns and replays alternate, so load from other processes hits both alike. The ratio is
 * engine time per step / baseline time per step.
 *
 * Node: the engine of test/unit/engine/harness.ts over fake-indexeddb, a provider object that
 * yields its events at once, a builtin no-op tool. Chromium: the built extension; the model is
 * the local SSE endpoint answering at once, the tool is the builtin `todo` (its own small commit
 * is part of the recorded transactions); each timed turn runs on a new thread from inside an
 * extension page (browser/turn-client.js), timed from posting turn.submit to turn.complete.
 * A new thread's first turn also asks the model for a title (one extra request per turn).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';
import { startChatServer } from '../demo/openai-server';
import {
  launch,
  lightClient,
  pageTimedTurn,
  PROBE_SOURCE,
  toolResultsSinceUser,
  useServer,
} from './chromium';
import { benchEngineGrowth, GROWTH_TARGET } from './engine-growth';
import { InstantProvider, makeNodeRig, noopTool } from './node-engine';
import { fmtMs, fmtRatio, median, round, type BenchResult, type SummaryRow } from './stats';

interface ProbeSummary {
  readwriteTxns: number;
  readonlyTxns: number;
  writes: number;
  writeBytes: number;
  readsInReadwrite: number;
  readsInReadonly: number;
  cursorSteps: number;
  byStore: Record<string, { reads: number; writes: number; writeBytes: number }>;
}

interface Probe {
  start(db: string): void;
  stop(): Promise<unknown>;
  summary(): ProbeSummary;
  replay(mode: 'full' | 'commits' | 'awaited'): Promise<number>;
  replayDexie(awaitEach?: boolean): Promise<number>;
}

const TARGET = 1.5;

const DEXIE_UMD_SOURCE = readFileSync(createRequire(import.meta.url).resolve('dexie'), 'utf8');

interface Samples {
  engine: number[];
  full: number[];
  commits: number[];
  /**
   * Informational, the commits three more ways: bare with each write awaited before the next;
   * through Dexie with each write awaited (as the repositories write); through Dexie with the
   * writes issued together and awaited at the end of the transaction.
   */
  awaitedCommits: number[];
  dexieCommits: number[];
  dexieIssuedCommits: number[];
}

function emptySamples(): Samples {
  return {
    engine: [],
    full: [],
    commits: [],
    awaitedCommits: [],
    dexieCommits: [],
    dexieIssuedCommits: [],
  };
}

function figures(where: string, steps: number, s: Samples, shape: ProbeSummary) {
  const perStep = median(s.engine) / steps;
  const fullPerStep = median(s.full) / steps;
  const commitsPerStep = median(s.commits) / steps;
  const dexiePerStep = median(s.dexieCommits) / steps;
  const awaitedPerStep = median(s.awaitedCommits) / steps;
  const dexieIssuedPerStep = median(s.dexieIssuedCommits) / steps;
  const per = (n: number) => round(n / steps, 2);
  return {
    where,
    steps,
    runs: s.engine.length,
    turnMs: s.engine.map((x) => round(x, 1)),
    sameTransactionsMs: s.full.map((x) => round(x, 1)),
    commitsOnlyMs: s.commits.map((x) => round(x, 1)),
    awaitedCommitsMs: s.awaitedCommits.map((x) => round(x, 1)),
    dexieCommitsMs: s.dexieCommits.map((x) => round(x, 1)),
    dexieIssuedCommitsMs: s.dexieIssuedCommits.map((x) => round(x, 1)),
    perStepMs: round(perStep, 3),
    baselinePerStepMs: round(fullPerStep, 3),
    commitsOnlyPerStepMs: round(commitsPerStep, 3),
    awaitedCommitsPerStepMs: round(awaitedPerStep, 3),
    dexieCommitsPerStepMs: round(dexiePerStep, 3),
    dexieIssuedCommitsPerStepMs: round(dexieIssuedPerStep, 3),
    dexieCommitsToBareCommits: round(dexiePerStep / commitsPerStep, 2),
    ratio: round(perStep / fullPerStep, 2),
    ratioToCommitsOnly: round(perStep / commitsPerStep, 2),
    overheadAboveBaselinePerStepMs: round(perStep - fullPerStep, 3),
    perStep: {
      readwriteTxns: per(shape.readwriteTxns),
      readonlyTxns: per(shape.readonlyTxns),
      writes: per(shape.writes),
      writeBytes: Math.round(shape.writeBytes / steps),
      readsInReadwrite: per(shape.readsInReadwrite),
      readsInReadonly: per(shape.readsInReadonly),
      cursorSteps: per(shape.cursorSteps),
      byStore: Object.fromEntries(
        Object.entries(shape.byStore).map(([k, v]) => [
          k,
          {
            reads: per(v.reads),
            writes: per(v.writes),
            writeBytes: Math.round(v.writeBytes / steps),
          },
        ]),
      ),
    },
  };
}

/** The Node half alone (also `tsx scripts/bench/engine-node-only.ts` while profiling). */
export async function nodeBench(steps: number, runs: number) {
  runInThisContext(PROBE_SOURCE);
  const probe = (globalThis as unknown as { __keelIdbProbe: Probe }).__keelIdbProbe;
  const rig = await makeNodeRig(
    new InstantProvider(() => steps, { name: 'noop', args: (i) => ({ i }) }),
    [noopTool],
  );
  try {
    await rig.turn(); // warm-up (JIT, Dexie table setup)
    const { threadId } = await rig.client.ok<{ threadId: string }>({ type: 'thread.create' });
    probe.start(rig.dbName);
    const { runId } = await rig.client.ok<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'go' },
    });
    await rig.client.waitFor((e) => e.type === 'turn.complete' && e.runId === runId);
    await probe.stop();
    const shape = probe.summary();
    const s = emptySamples();
    // Loaded here, not at the top: Dexie must load after fake-indexeddb (node-engine.ts) installs
    // its globals. The engine's own copy, so the replay runs the same Dexie code.
    (globalThis as unknown as { Dexie: unknown }).Dexie = (await import('dexie')).default;
    for (let r = 0; r < runs; r++) {
      s.engine.push((await rig.turn()).ms);
      s.full.push(await probe.replay('full'));
      s.commits.push(await probe.replay('commits'));
      s.awaitedCommits.push(await probe.replay('awaited'));
      s.dexieCommits.push(await probe.replayDexie(true));
      s.dexieIssuedCommits.push(await probe.replayDexie(false));
    }
    return figures('Node (fake-indexeddb)', steps, s, shape);
  } finally {
    rig.close();
  }
}

export async function chromiumBench(steps: number, runs: number) {
  const server = await startChatServer({
    respond(req) {
      if (req.isTitle) return { text: 'Bench' };
      const done = toolResultsSinceUser(req.body.messages);
      if (done >= steps) return { text: 'Done.', usage: { inputTokens: 10, outputTokens: 2 } };
      return {
        text: `Step ${done + 1}.`,
        toolCalls: [
          { name: 'todo', args: { todos: [{ text: 'benchmark step', status: 'in_progress' }] } },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      };
    },
  });
  const ext = await launch();
  try {
    const { page, client } = await lightClient(ext);
    await useServer(client, server);
    // From here the harness client hears no thread events (each one would cross to Node); timed
    // turns run from inside the page.
    await client.sendOk({ type: 'initialize', subscribe: [] });
    await ext.worker.evaluate(PROBE_SOURCE);
    // A second Dexie (its UMD build sets globalThis.Dexie) for the Dexie replay of the commits;
    // the extension's own copy is bundled and not reachable from here.
    await ext.worker.evaluate(DEXIE_UMD_SOURCE);
    const probe = <T>(fn: string) =>
      ext.worker.evaluate(`globalThis.__keelIdbProbe.${fn}`) as Promise<T>;
    await pageTimedTurn(page, 'go'); // warm-up
    await probe<void>(`start('keel')`);
    await pageTimedTurn(page, 'go');
    await probe(`stop()`);
    const shape = await probe<ProbeSummary>('summary()');
    const s = emptySamples();
    const fetchMs: number[] = [];
    // A mid-turn request as the worker sent it, to time the bare model round trip (informational).
    const sample = server.requests.filter((r) => !r.isTitle)[Math.floor(steps / 2)];
    for (let r = 0; r < runs; r++) {
      s.engine.push((await pageTimedTurn(page, 'go')).ms);
      s.full.push(await probe<number>(`replay('full')`));
      s.commits.push(await probe<number>(`replay('commits')`));
      s.awaitedCommits.push(await probe<number>(`replay('awaited')`));
      s.dexieCommits.push(await probe<number>('replayDexie(true)'));
      s.dexieIssuedCommits.push(await probe<number>('replayDexie(false)'));
      fetchMs.push(
        await bareFetches(
          ext.worker,
          `${server.baseURL}/chat/completions`,
          JSON.stringify(sample.body),
          steps,
        ),
      );
    }
    const f = figures('Chromium (extension service worker)', steps, s, shape);
    const fetchPerStep = median(fetchMs) / steps;
    return {
      ...f,
      bareModelFetchPerStepMs: round(fetchPerStep, 3),
      ...modelFloor(f.baselinePerStepMs, fetchPerStep, f.perStep.readwriteTxns),
      overheadAboveIdbAndFetchPerStepMs: round(f.perStepMs - f.baselinePerStepMs - fetchPerStep, 3),
      modelRequests: server.requests.length,
    };
  } finally {
    await ext.close();
    await server.close();
  }
}

/**
 * The lowest ratio any engine could reach in this run, given the model's round trip (which the
 * timed step includes and the IndexedDB baseline does not): an engine that waits for the model
 * before its commits pays baseline + fetch (`modelFetchFloorRatio`). One that overlapped with the
 * round trip every commit it legitimately could — the tool result's commit and the next request's
 * cutoff, 2 of the step's read-write transactions, each costed at the step's mean — would still pay
 * the rest of the fetch (`overlappedFetchFloorRatio`, an estimate). Both assume zero CPU of its own.
 */
function modelFloor(baselinePerStep: number, fetchPerStep: number, rwTxnsPerStep: number) {
  const overlappable = rwTxnsPerStep > 0 ? (2 * baselinePerStep) / rwTxnsPerStep : 0;
  return {
    modelFetchFloorRatio: round((baselinePerStep + fetchPerStep) / baselinePerStep, 2),
    overlappedFetchFloorRatio: round(
      (baselinePerStep + Math.max(0, fetchPerStep - overlappable)) / baselinePerStep,
      2,
    ),
  };
}

/**
 * `n` sequential fetches of the same streamed reply from the worker, each read to the end: the
 * model round trip a step pays in Chromium before the engine does anything (informational).
 */
async function bareFetches(
  worker: { evaluate(expr: string): Promise<unknown> },
  url: string,
  body: string,
  n: number,
): Promise<number> {
  const expr = `(async () => {
    const t0 = performance.now();
    for (let i = 0; i < ${n}; i++) {
      const res = await fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench-key' }, body: ${JSON.stringify(body)} });
      const reader = res.body.getReader();
      while (!(await reader.read()).done) {}
    }
    return performance.now() - t0;
  })()`;
  return (await worker.evaluate(expr)) as number;
}

/**
 * Informational: the engine step (less the bare model round trip, in Chromium) against the same
 * commits made through Dexie, the store library the project chose: what the engine spends above
 * the commits it must make, on this stack. No target of its own; the ≤ 1.5× target is against
 * bare IndexedDB (the rows above).
 */
function overDexie(
  label: string,
  f: { perStepMs: number; dexieCommitsPerStepMs: number },
  fetchPerStepMs = 0,
): SummaryRow {
  const engine = f.perStepMs - fetchPerStepMs;
  return {
    metric: `engine step over its commits through Dexie, ${label}${fetchPerStepMs ? ' (model fetch taken out)' : ''}`,
    value: `${fmtMs(engine)}/step`,
    baseline: `${fmtMs(f.dexieCommitsPerStepMs)}/step the same commits through Dexie, each write awaited`,
    ratio: fmtRatio(engine / f.dexieCommitsPerStepMs),
    target: '—',
  };
}

export async function benchEngineSteps(
  opts: { steps?: number; runs?: number } = {},
): Promise<BenchResult> {
  const steps = opts.steps ?? 50;
  const runs = opts.runs ?? 5;
  const node = await nodeBench(steps, runs);
  // Growth turns are short (5 steps, ~10 ms): three times the rounds, so the median holds under load.
  const growth = await benchEngineGrowth({ runs: runs * 3 });
  const chromium = await chromiumBench(steps, runs);
  const row = (
    label: string,
    f: typeof node & {
      bareModelFetchPerStepMs?: number;
      modelFetchFloorRatio?: number;
      overlappedFetchFloorRatio?: number;
    },
  ): SummaryRow => ({
    metric: `engine step overhead, ${label} (${steps}-step turn)`,
    value: `${fmtMs(f.perStepMs)}/step`,
    baseline:
      `${fmtMs(f.baselinePerStepMs)}/step same IDB txns (commits only ${fmtMs(f.commitsOnlyPerStepMs)}: ${fmtRatio(f.ratioToCommitsOnly)})` +
      (f.bareModelFetchPerStepMs !== undefined
        ? `; model fetch ${fmtMs(f.bareModelFetchPerStepMs)} (floor with it ${fmtRatio(f.modelFetchFloorRatio ?? 0)}, overlapped ${fmtRatio(f.overlappedFetchFloorRatio ?? 0)})`
        : ''),
    ratio: fmtRatio(f.ratio),
    target: `≤ ${TARGET}×`,
    ok: f.ratio <= TARGET,
  });
  return {
    name: 'engine step overhead',
    file: 'engine-steps.json',
    data: { steps, runs, target: `ratio ≤ ${TARGET}`, node, chromium, growth },
    rows: [
      row('Node', node),
      row('Chromium', chromium),
      overDexie('Node', node),
      overDexie('Chromium', chromium, chromium.bareModelFetchPerStepMs),
      {
        metric: `engine step growth, Node (${growth.steps}-step turn, ~${growth.largeThreadNodesBefore} vs ~${growth.smallThreadNodesAfterTurn} nodes)`,
        value: `${fmtMs(growth.largePerStepMs)}/step`,
        baseline: `${fmtMs(growth.smallPerStepMs)}/step on a new thread`,
        ratio: fmtRatio(growth.ratio),
        target: `≤ ${GROWTH_TARGET}×`,
        ok: growth.ratio <= GROWTH_TARGET,
      },
    ],
  };
}
