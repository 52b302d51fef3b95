/**
 * `npm run bench -- --only peers` (issue 26): the same tasks, the same careful model (peers/
 * policy.ts), two agents, one run — Keel (the built extension, its own tools) and Playwright MCP
 * (`@playwright/mcp`, pinned, over stdio with the official MCP client, on the same Chromium and
 * the same loopback pages). Per task and agent: success (the app's state), tool calls, input
 * tokens of every request (whole context, one tokenizer), with and without prompt caching at
 * catalog prices, output tokens, wall time. Per agent: totals, medians, Keel / peer ratios.
 *
 * KEEL_PEERS_TASKS=todo-react,shop limits the tasks (development); the report then says so and
 * the run fails, since a benchmark counts what it expected.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveFixtureSite } from '../../test/e2e/browser/support/server';
import { buildWidgets, WIDGETS_DIR } from '../../test/fixtures/widgets/build';
import { REPO_ROOT } from '../demo/setup';
import { startShop } from '../demo/shop/server';
import {
  type ChatRequest,
  cost,
  PRICED_MODEL,
  requestFigures,
  tokens,
  type CostFigures,
} from './peers/accounting';
import {
  PEER_SYSTEM_PROMPT,
  startKeel,
  startPlaywrightMcp,
  type PeerAgent,
  type TaskRun,
} from './peers/agents';
import { PEER_TASKS } from './peers/tasks';
import { fmtRatio, round, type BenchResult, type SummaryRow } from './stats';

export interface PeerRow extends Omit<TaskRun, 'requests'> {
  requestCount: number;
  cost: CostFigures;
  /** Input tokens of the first request: tool definitions + system prompt + task (fixed overhead). */
  firstRequestTokens: number;
  /** Where the input tokens went, summed over the task's requests. */
  profile: InputProfile;
}

/** Input tokens by part, summed over requests: what a request repeats and what the task added. */
export interface InputProfile {
  toolDefinitions: number;
  systemPrompt: number;
  /** Tool results (snapshots, finds, action reports). */
  toolResults: number;
  /** The task, the model's own calls and its final answer. */
  other: number;
}

function profileOf(
  requests: readonly ChatRequest[],
  per: readonly { input: number }[],
): InputProfile {
  const p: InputProfile = { toolDefinitions: 0, systemPrompt: 0, toolResults: 0, other: 0 };
  requests.forEach((r, i) => {
    const defs = tokens(JSON.stringify(r.tools ?? [])).length;
    let system = 0;
    let results = 0;
    for (const m of r.messages) {
      const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
      if (m.role === 'system') system += tokens(text).length;
      if (m.role === 'tool') results += tokens(text).length;
    }
    p.toolDefinitions += defs;
    p.systemPrompt += system;
    p.toolResults += results;
    p.other += Math.max(0, per[i].input - defs - system - results);
  });
  return p;
}

const median = (xs: readonly number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function rowOf(run: TaskRun): PeerRow {
  const { requests, ...rest } = run;
  const per = requestFigures(requests);
  return {
    ...rest,
    requestCount: requests.length,
    cost: cost(per, run.outputTokens),
    firstRequestTokens: per[0]?.input ?? 0,
    profile: profileOf(requests, per),
  };
}

export interface AgentTotals {
  agent: string;
  tasks: number;
  successes: number;
  toolCalls: number;
  inputTokens: number;
  inputTokensPerSuccess: number;
  medianInputTokens: number;
  outputTokens: number;
  usdNoCache: number;
  usdCached: number;
  wallMs: number;
  medianWallMs: number;
  wallMsPerSuccess: number;
  firstRequestTokens: number;
  profile: InputProfile;
  wall: WallProfile;
}

/**
 * Where the wall time went, summed over every call: per tool (calls, ms), and for Keel the time
 * to each call's result, the engine after it, and the page actions' phases.
 */
export interface WallProfile {
  byTool: Record<string, { calls: number; ms: number }>;
  /** Keel only: request → result recorded, and result → next request (CallTiming). */
  split?: { toResultMs: number; afterMs: number };
  /** Keel only: the page actions' phases (details.timing), summed. */
  phases?: Record<string, number>;
}

export function wallProfile(rows: readonly PeerRow[]): WallProfile {
  const byTool: WallProfile['byTool'] = {};
  const split = { toResultMs: 0, afterMs: 0 };
  const phases: Record<string, number> = {};
  let timed = false;
  for (const c of rows.flatMap((r) => r.calls)) {
    if (!Number.isFinite(c.ms)) continue;
    const t = (byTool[c.tool] ??= { calls: 0, ms: 0 });
    t.calls++;
    t.ms += c.ms;
    if (c.toResultMs !== undefined && c.afterMs !== undefined) {
      timed = true;
      split.toResultMs += c.toResultMs;
      split.afterMs += c.afterMs;
    }
    for (const [k, v] of Object.entries(c.phases ?? {})) phases[k] = (phases[k] ?? 0) + v;
  }
  return timed ? { byTool, split, phases } : { byTool };
}

/** The wall-time profile as a table: per tool, each agent's calls, total and mean ms. */
export function wallTable(keel: WallProfile, peer: WallProfile): string {
  const tools = [...new Set([...Object.keys(keel.byTool), ...Object.keys(peer.byTool)])].sort();
  const cell = (t?: { calls: number; ms: number }) =>
    t ? `${t.calls} | ${Math.round(t.ms)} | ${Math.round(t.ms / t.calls)}` : '— | — | —';
  const lines = tools.map((n) => `| ${n} | ${cell(keel.byTool[n])} | ${cell(peer.byTool[n])} |`);
  return [
    '| tool | Keel calls | Keel ms | Keel ms/call | PW calls | PW ms | PW ms/call |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...lines,
  ].join('\n');
}

function totals(agent: string, rows: readonly PeerRow[]): AgentTotals {
  const ok = rows.filter((r) => r.success).length;
  const input = sum(rows.map((r) => r.cost.inputTokens));
  const wall = sum(rows.map((r) => r.wallMs));
  return {
    agent,
    tasks: rows.length,
    successes: ok,
    toolCalls: sum(rows.map((r) => r.toolCalls)),
    inputTokens: input,
    inputTokensPerSuccess: ok ? input / ok : Infinity,
    medianInputTokens: median(rows.map((r) => r.cost.inputTokens)),
    outputTokens: sum(rows.map((r) => r.outputTokens)),
    usdNoCache: sum(rows.map((r) => r.cost.usdNoCache)),
    usdCached: sum(rows.map((r) => r.cost.usdCached)),
    wallMs: wall,
    medianWallMs: median(rows.map((r) => r.wallMs)),
    wallMsPerSuccess: ok ? wall / ok : Infinity,
    firstRequestTokens: median(rows.map((r) => r.firstRequestTokens)),
    profile: {
      toolDefinitions: sum(rows.map((r) => r.profile.toolDefinitions)),
      systemPrompt: sum(rows.map((r) => r.profile.systemPrompt)),
      toolResults: sum(rows.map((r) => r.profile.toolResults)),
      other: sum(rows.map((r) => r.profile.other)),
    },
    wall: wallProfile(rows),
  };
}

/** The per-task markdown table (docs/benchmarks.md carries a copy). */
export function peersTable(keel: readonly PeerRow[], peer: readonly PeerRow[]): string {
  const head =
    '| task | Keel ok | PW ok | Keel calls | PW calls | Keel input tok | PW input tok | ratio | Keel s | PW s |\n' +
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |';
  const lines = keel.map((k) => {
    const p = peer.find((x) => x.task === k.task);
    const cell = (r?: PeerRow) => (r ? (r.success ? 'yes' : 'NO') : '—');
    return `| ${k.task} | ${cell(k)} | ${cell(p)} | ${k.toolCalls} | ${p?.toolCalls ?? '—'} | ${k.cost.inputTokens} | ${p?.cost.inputTokens ?? '—'} | ${p ? fmtRatio(k.cost.inputTokens / p.cost.inputTokens) : '—'} | ${round(k.wallMs / 1000, 1)} | ${p ? round(p.wallMs / 1000, 1) : '—'} |`;
  });
  return [head, ...lines].join('\n');
}

export async function benchPeers(): Promise<BenchResult> {
  const only = process.env.KEEL_PEERS_TASKS?.split(',').filter(Boolean);
  const tasks = only ? PEER_TASKS.filter((t) => only.includes(t.id)) : PEER_TASKS;
  const expected = PEER_TASKS.length;
  // KEEL_PEERS_AGENTS=keel runs one agent (A/B runs of Keel builds); the run is then incomplete.
  const agents = process.env.KEEL_PEERS_AGENTS?.split(',') ?? ['keel', 'playwright-mcp'];
  await buildWidgets();
  const site = await serveFixtureSite(WIDGETS_DIR);
  const shop = await startShop();
  const urlOf = (t: (typeof PEER_TASKS)[number]) =>
    t.site === 'shop' ? `${shop.origin}/${t.path}` : `${site.main.origin}/${t.path}`;
  const rows: Record<string, PeerRow[]> = { keel: [], 'playwright-mcp': [] };
  let peerVersion = 'unknown';
  const firstRequests: Record<string, ChatRequest> = {};
  const runAll = async (agent: PeerAgent) => {
    for (const task of tasks) {
      shop.resetCart();
      const run = await agent.run(task, urlOf(task), (state) =>
        task.done(state, () => shop.cart()),
      );
      const row = rowOf(run);
      if (!firstRequests[agent.name] && run.requests[0])
        firstRequests[agent.name] = run.requests[0];
      rows[agent.name].push(row);
      console.log(
        `  [peers] ${agent.name} ${task.id}: ${run.success ? 'ok' : `FAILED${run.gaveUp ? ` (${run.gaveUp})` : ''}${run.error ? ` (${run.error})` : ''}`}, ${run.toolCalls} calls, ${row.cost.inputTokens} input tokens, ${round(run.wallMs / 1000, 1)} s`,
      );
      if (!run.success) for (const l of run.trace) console.log(`      ${l}`);
    }
  };
  try {
    // One agent at a time: the other's browser is closed, so neither competes for the CPU.
    if (agents.includes('keel')) {
      const keel = await startKeel([site.main.origin, shop.origin]);
      try {
        await runAll(keel);
      } finally {
        await keel.close();
      }
    }
    if (agents.includes('playwright-mcp')) {
      const pw = await startPlaywrightMcp();
      peerVersion = pw.version;
      try {
        await runAll(pw);
      } finally {
        await pw.close();
      }
    }
  } finally {
    await site.close();
    await shop.close();
  }
  const k = totals('keel', rows.keel);
  const p = totals('playwright-mcp', rows['playwright-mcp']);
  const table = peersTable(rows.keel, rows['playwright-mcp']);
  console.log(table);
  const walls = wallTable(k.wall, p.wall);
  console.log(walls);
  console.log(
    `  [peers] Keel split: ${JSON.stringify(k.wall.split)}; phases ${JSON.stringify(k.wall.phases)}`,
  );
  const tokenRatio = k.inputTokensPerSuccess / p.inputTokensPerSuccess;
  const wallRatio = k.wallMsPerSuccess / p.wallMsPerSuccess;
  const complete = tasks.length === expected && agents.length === 2;
  const summary: SummaryRow[] = [
    {
      metric: 'peer tasks done (Keel / Playwright MCP)',
      value: `${k.successes} / ${p.successes} of ${expected}`,
      baseline: `${expected} tasks`,
      ratio: fmtRatio(p.successes ? k.successes / p.successes : Infinity),
      target: '≥ as many, all run',
      ok: complete && k.successes >= p.successes,
    },
    {
      metric: 'peer input tokens per successful task',
      value: String(Math.round(k.inputTokensPerSuccess)),
      baseline: `${Math.round(p.inputTokensPerSuccess)} (Playwright MCP)`,
      ratio: fmtRatio(tokenRatio),
      target: '≤ 0.3×',
      ok: tokenRatio <= 0.3,
    },
    {
      metric: 'peer $ per task, cached / uncached',
      value: `$${round(k.usdCached / k.tasks, 4)} / $${round(k.usdNoCache / k.tasks, 4)}`,
      baseline: `$${round(p.usdCached / p.tasks, 4)} / $${round(p.usdNoCache / p.tasks, 4)}`,
      ratio: fmtRatio(k.usdCached / p.usdCached),
      target: '—',
    },
    {
      metric: 'peer wall time per successful task',
      value: `${round(k.wallMsPerSuccess / 1000, 2)} s`,
      baseline: `${round(p.wallMsPerSuccess / 1000, 2)} s (Playwright MCP)`,
      ratio: fmtRatio(wallRatio),
      target: '≤ 0.7×',
      ok: wallRatio <= 0.7,
    },
  ];
  if (!complete)
    summary.push({
      metric: 'peer tasks run',
      value: `${tasks.length} of ${expected}${agents.length < 2 ? ` (${agents.join(', ')} only)` : ''}`,
      baseline: 'KEEL_PEERS_TASKS',
      ratio: '—',
      target: 'all',
      ok: false,
      incomplete: `${tasks.length} of ${expected} tasks run (KEEL_PEERS_TASKS), agents: ${agents.join(', ')}`,
    });
  const broken = [...rows.keel, ...rows['playwright-mcp']].filter((r) => r.error);
  if (broken.length)
    summary.push({
      metric: 'peer task runs that errored (harness, not model)',
      value: String(broken.length),
      baseline: broken.map((r) => `${r.agent} ${r.task}`).join(', '),
      ratio: '—',
      target: '0',
      ok: false,
      incomplete: `${broken.length} task runs errored: ${broken[0].error}`,
    });
  writeFileSync(join(REPO_ROOT, 'bench-results/peers.md'), `${table}\n\n${walls}\n`);
  return {
    name: 'peers',
    file: 'peers.json',
    data: {
      method: {
        pricedModel: PRICED_MODEL,
        tokenizer: 'o200k_base (gpt-tokenizer)',
        peer: `@playwright/mcp ${peerVersion}`,
        peerSystemPrompt: PEER_SYSTEM_PROMPT,
        tasksExpected: expected,
        tasksRun: tasks.length,
      },
      totals: [k, p],
      firstRequests,
      rows,
    },
    rows: summary,
  };
}
