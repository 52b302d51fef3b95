/**
 * The step gap (issue 26, point 4): what a user waits for that is neither the model nor the page.
 * From a model response's last byte to the next model request's first byte, less the tool's own
 * execution, in Chromium with the built extension.
 *
 * Ground truth on one clock (this process): the loopback model server records when each response's
 * last byte was written and when each request arrived; the tool is a no-op on a loopback MCP server
 * (the official SDK's server), which records when each `tools/call` arrived and when its answer was
 * written. Per step: gap = next request − response end − (tool answer written − tool call arrived).
 * What remains is the engine: parsing the stream, committing the call, the Gatekeeper, the MCP
 * client, committing the result, building the next context and sending it.
 *
 * Three shapes: a long turn (50 steps on a new thread); short turns on small threads (≤ 10 nodes);
 * the same short turns on a thread of about 2,000 nodes (made by the real engine in Node and written
 * into the extension's database, as the 2,000-item thread benchmark does). Flat with thread size
 * means p50 at 2,000 nodes ≤ 1.2× p50 at 10.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startChatServer, wallClock, type ChatRequest } from '../demo/openai-server';
import { launch, lightClient, pageTimedTurn, toolResultsSinceUser, useServer } from './chromium';
import { percentile, round, fmtMs, fmtRatio, type BenchResult, type SummaryRow } from './stats';
import { makeThread, seed } from './thread-2000';
import {
  DRAIN_MARKS_SOURCE,
  enableMarksSource,
  phaseTable,
  serverTimes,
  stepPhases,
  workerClockOffset,
  type Mark,
} from './step-gap-profile';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../demo/setup';

const GOAL_P50_MS = 10;
const GOAL_P95_MS = 25;
const GOAL_FLAT = 1.2;
const SERVER_ID = 'bench';

interface ToolCallTiming {
  arrivedAt: number;
  answeredAt: number;
}

/** A loopback MCP server with one no-op tool, stateless, recording each tools/call's window. */
async function startNoopMcp(): Promise<{
  url: string;
  calls: ToolCallTiming[];
  close(): Promise<void>;
}> {
  const calls: ToolCallTiming[] = [];
  const server: Server = createServer((req, res) => {
    const arrivedAt = wallClock();
    void readJson(req).then(async (body) => {
      const isCall = (body as { method?: string } | undefined)?.method === 'tools/call';
      if (isCall) res.on('finish', () => calls.push({ arrivedAt, answeredAt: wallClock() }));
      const mcp = new McpServer({ name: 'keel-bench', version: '1.0.0' });
      mcp.registerTool(
        'noop',
        { description: 'Does nothing (benchmark).', annotations: { readOnlyHint: true } },
        async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** The offered tool that is the MCP server's no-op (its name as the engine prefixes it). */
function noopName(req: ChatRequest): string | undefined {
  const tools = (req.body.tools ?? []) as { function?: { name?: string } }[];
  return tools.map((t) => t.function?.name ?? '').find((n) => n.endsWith('noop'));
}

/**
 * The gaps of the steps between `from` and `to` (model requests, titles left out), paired in
 * order with the tool calls the same steps made.
 */
function gapsOf(requests: ChatRequest[], calls: ToolCallTiming[], parts: Parts): number[] {
  const steps = requests.filter((r) => !r.isTitle);
  const gaps: number[] = [];
  for (let i = 0; i + 1 < steps.length && i < calls.length; i++) {
    const end = steps[i].sentAt;
    if (end === undefined) throw new Error('step gap: a response was never finished');
    const tool = calls[i].answeredAt - calls[i].arrivedAt;
    gaps.push(steps[i + 1].receivedAt - end - tool);
    // Where the gap goes: before the tool call reaches the server, and after its answer.
    parts.beforeTool.push(calls[i].arrivedAt - end);
    parts.afterTool.push(steps[i + 1].receivedAt - calls[i].answeredAt);
  }
  return gaps;
}

interface Parts {
  beforeTool: number[];
  afterTool: number[];
}

const stats = (xs: number[]) => ({
  n: xs.length,
  p50: round(percentile(xs, 50), 2),
  p95: round(percentile(xs, 95), 2),
  max: round(Math.max(...xs), 2),
});

export async function benchStepGap(
  opts: { longSteps?: number; shortSteps?: number; shortTurns?: number } = {},
): Promise<BenchResult> {
  const longSteps = opts.longSteps ?? 50;
  const shortSteps = opts.shortSteps ?? 3;
  const shortTurns = opts.shortTurns ?? 10;
  let stepsPerTurn = longSteps;
  const mcp = await startNoopMcp();
  const server = await startChatServer({
    respond(req) {
      if (req.isTitle) return { text: 'Bench' };
      const tool = noopName(req);
      const done = toolResultsSinceUser(req.body.messages);
      if (!tool || done >= stepsPerTurn) return { text: 'Done.' };
      return { text: `Step ${done + 1}.`, toolCalls: [{ name: tool, args: {} }] };
    },
  });
  const big = await makeThread();
  const ext = await launch();
  try {
    const { page, client } = await lightClient(ext);
    await useServer(client, server);
    await client.sendOk({
      type: 'settings.update',
      patch: { mcpServers: [{ id: SERVER_ID, url: mcp.url, enabled: true }] },
    });
    await client.sendOk({ type: 'siteRules.set', origin: `mcp:${SERVER_ID}`, rule: 'allow' });
    await client.sendOk({ type: 'initialize', subscribe: [] });
    // The worker lists the server's tools after the settings change: wait until they are offered.
    const until = Date.now() + 30_000;
    for (;;) {
      stepsPerTurn = 1;
      const before = server.requests.length;
      await pageTimedTurn(page, 'warm up');
      if (server.requests.slice(before).some((r) => noopName(r))) break;
      if (Date.now() > until) throw new Error('step gap: the MCP tool was never offered');
      await new Promise((r) => setTimeout(r, 300));
    }
    // Where the gap goes: the worker marks each phase (src/util/step-marks.ts), on for this run.
    await ext.worker.evaluate(enableMarksSource(mcp.url));
    const offset = await workerClockOffset(ext.worker);
    const profile: Record<'long' | 'small' | 'large', (number[] | null)[]> = {
      long: [],
      small: [],
      large: [],
    };
    /** One turn's gaps: the requests and tool calls it made, paired. */
    const turn = async (steps: number, threadId?: string, shape?: keyof typeof profile) => {
      stepsPerTurn = steps;
      const r0 = server.requests.length;
      const c0 = mcp.calls.length;
      await ext.worker.evaluate(DRAIN_MARKS_SOURCE);
      await pageTimedTurn(page, 'go', threadId);
      const calls = mcp.calls.slice(c0);
      if (calls.length !== steps)
        throw new Error(`step gap: expected ${steps} tool calls, the server saw ${calls.length}`);
      const marks = ((await ext.worker.evaluate(DRAIN_MARKS_SOURCE)) as Mark[]).map(
        ([p, at]): Mark => [p, at - offset],
      );
      const requests = server.requests.slice(r0);
      if (shape) profile[shape].push(...stepPhases(marks, serverTimes(requests, calls)));
      return gapsOf(requests, calls, parts);
    };
    const parts: Parts = { beforeTool: [], afterTool: [] };
    await turn(shortSteps); // warm-up
    const long = await turn(longSteps, undefined, 'long');
    const small: number[] = [];
    for (let i = 0; i < shortTurns; i++)
      small.push(...(await turn(shortSteps, undefined, 'small')));
    await seed(page, big.thread, big.nodes);
    await ext.worker.evaluate(enableMarksSource(mcp.url));
    const large: number[] = [];
    const bigRequests = server.requests.length;
    await turn(shortSteps, big.thread.threadId); // warm-up: the thread's first read
    for (let i = 0; i < shortTurns; i++)
      large.push(...(await turn(shortSteps, big.thread.threadId, 'large')));
    const expected = {
      long: longSteps,
      small: shortSteps * shortTurns,
      large: shortSteps * shortTurns,
    };
    const s = { long: stats(long), small: stats(small), large: stats(large) };
    const where = {
      method:
        "per step, p50 of each phase: worker marks (src/util/step-marks.ts, on only for this benchmark) and the servers' times, on this process's clock",
      workerClockOffsetMs: round(offset, 3),
      smallThreads: phaseTable(profile.small),
      largeThread: phaseTable(profile.large),
      longTurn: phaseTable(profile.long),
    };
    mkdirSync(join(REPO_ROOT, 'bench-results'), { recursive: true });
    writeFileSync(
      join(REPO_ROOT, 'bench-results', 'step-gap-profile.json'),
      `${JSON.stringify(where, null, 2)}\n`,
    );
    const flat = s.large.p50 / s.small.p50;
    const incomplete =
      long.length < expected.long || small.length < expected.small || large.length < expected.large
        ? `gaps measured: ${long.length}/${expected.long}, ${small.length}/${expected.small}, ${large.length}/${expected.large}`
        : undefined;
    const row = (metric: string, x: ReturnType<typeof stats>): SummaryRow => ({
      metric,
      value: `p50 ${fmtMs(x.p50)}, p95 ${fmtMs(x.p95)}`,
      baseline: `${x.n} steps`,
      ratio: '',
      target: `p50 ≤ ${GOAL_P50_MS} ms, p95 ≤ ${GOAL_P95_MS} ms`,
      ok: x.p50 <= GOAL_P50_MS && x.p95 <= GOAL_P95_MS,
      ...(incomplete ? { incomplete } : {}),
    });
    return {
      name: 'step gap',
      file: 'step-gap.json',
      data: {
        method:
          'response last byte → next request first byte, less the MCP no-op tool call window, all on the benchmark process clock',
        longTurn: { steps: longSteps, ...s.long, samplesMs: long.map((x) => round(x, 2)) },
        smallThreads: { turns: shortTurns, stepsPerTurn: shortSteps, ...s.small },
        largeThread: {
          nodes: big.nodes.length,
          // What the model was sent on that thread (proof the turns ran on it, not a new one).
          messagesPerRequest: (server.requests.at(-1)?.body.messages ?? []).length,
          firstRequestMessages: (server.requests[bigRequests]?.body.messages ?? []).length,
          turns: shortTurns,
          stepsPerTurn: shortSteps,
          ...s.large,
        },
        flatness: round(flat, 2),
        goals: { p50Ms: GOAL_P50_MS, p95Ms: GOAL_P95_MS, flat: GOAL_FLAT },
        // All steps: response end → tool call arrives; tool answer → next request arrives.
        partsMs: { beforeTool: stats(parts.beforeTool), afterTool: stats(parts.afterTool) },
        toolWindowMs: stats(mcp.calls.map((c) => c.answeredAt - c.arrivedAt)),
      },
      rows: [
        row(`step gap, Chromium, a ${longSteps}-step turn`, s.long),
        row('step gap, Chromium, threads of ≤ 10 nodes', s.small),
        row(`step gap, Chromium, a thread of ~${big.nodes.length} nodes`, s.large),
        {
          metric: 'step gap growth, ~2,000 vs ≤ 10 nodes (p50)',
          value: fmtMs(s.large.p50),
          baseline: fmtMs(s.small.p50),
          ratio: fmtRatio(flat),
          target: `≤ ${GOAL_FLAT}×`,
          ok: flat <= GOAL_FLAT,
          ...(incomplete ? { incomplete } : {}),
        },
      ],
    };
  } finally {
    await ext.close();
    await server.close();
    await mcp.close();
  }
}
