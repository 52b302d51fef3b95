/**
 * The two agents of the peer benchmark, each driven by the same careful model (policy.ts):
 *   - Keel: the built extension in Chromium; the model is a loopback OpenAI-compatible server
 *     answering the engine's real requests (so the tool definitions, system prompt and context
 *     counted are exactly what Keel sends);
 *   - Playwright MCP: `@playwright/mcp` over stdio through the official MCP client, on the same
 *     Chromium binary; the model loop is a plain MCP host here: the tool list as the host offers
 *     it, a one-line system prompt, the results appended as they come.
 * Neither model takes time to think: wall time is the agent's own (engine, tools, page).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import {
  chromiumExecutable,
  EngineClient,
  isTitleRequest,
  launchExtension,
  startModelServer,
  type LaunchedExtension,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../../../test/e2e/harness';
import { DIST, REPO_ROOT } from '../../demo/setup';
import { type ChatRequest, outputTokens } from './accounting';
import { CarefulModel, type Dialect, KEEL_DIALECT, PLAYWRIGHT_DIALECT } from './policy';
import type { PeerTask } from './tasks';

/**
 * One tool call's wall time: from the model request that asked for it to the next request (the
 * model answers at once, so this is all the agent's own time). Keel's is split further, on the
 * one wall clock the bench and the extension share: `toResultMs` from the request to the call's
 * result being recorded (the engine's step, the tool's wrappers and the tool), `afterMs` from
 * there to the next request (the engine), and `phases`, the page action's own split
 * (details.timing: prepare, act, settle, report).
 */
export interface CallTiming {
  tool: string;
  ms: number;
  toResultMs?: number;
  afterMs?: number;
  phases?: Record<string, number>;
}

export interface TaskRun {
  agent: string;
  task: string;
  /** The model finished its plan and the app's state is the expected one. */
  success: boolean;
  gaveUp?: string;
  error?: string;
  toolCalls: number;
  tools: string[];
  requests: ChatRequest[];
  outputTokens: number;
  wallMs: number;
  /** Each call's wall time, in order (the profile in docs/benchmarks.md). */
  calls: CallTiming[];
  /** Each call and the first line of its result (for the report). */
  trace: string[];
  /** A failed run's last two tool results in full (what the model had when it gave up). */
  lastResults?: string[];
}

export interface PeerAgent {
  name: string;
  run(task: PeerTask, url: string, check: (state: unknown) => boolean): Promise<TaskRun>;
  close(): Promise<void>;
}

interface Msg {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

const toolTexts = (messages: readonly Msg[]) =>
  messages
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

const firstLine = (s: string) =>
  s
    .split('\n')
    .find((l) => l.trim())
    ?.slice(0, 160) ?? '';

async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---------------------------------------------------------------- Keel

export async function startKeel(origins: readonly string[]): Promise<PeerAgent> {
  let model: CarefulModel | null = null;
  let requests: RecordedRequest[] = [];
  let requestAt: number[] = [];
  let gaveUp: string | undefined;
  let output = 0;
  const dispatch = (r: RecordedRequest): ScriptedReply => {
    // The wall clock: the tool results' `createdAt` (the extension's clock) is compared with it.
    requestAt.push(Date.now());
    server.push(dispatch);
    requests.push(r);
    const move = model?.next(toolTexts((r.body.messages ?? []) as Msg[])) ?? { done: true };
    if ('done' in move) {
      gaveUp = move.gaveUp;
      output += outputTokens('text', 'Done.');
      return { text: 'Done.' };
    }
    output += outputTokens(move.call.name, move.call.args);
    return { toolCalls: [{ name: move.call.name, args: move.call.args }] };
  };
  const server: ModelServer = await startModelServer({
    script: [dispatch],
    respond: (r) => (isTitleRequest(r) ? { text: 'Browser task' } : undefined),
  });
  const ext: LaunchedExtension = await launchExtension({
    dist: process.env.KEEL_DIST || DIST,
    headless: true,
  });
  const host = await ext.context.newPage();
  await host.goto(ext.url('manifest.json'));
  const client = await EngineClient.connect(host, { timeoutMs: 30_000 });
  await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  const provider = server.provider('openai', 'bench');
  await client.sendOk({
    type: 'settings.update',
    patch: {
      providers: [provider],
      defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
    },
  });
  for (const origin of origins)
    await client.sendOk({ type: 'siteRules.set', origin, rule: 'allow' });

  return {
    name: 'keel',
    async run(task, url, check) {
      const page: Page = await ext.context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      await poll(() => page.evaluate(task.state), Boolean, 10_000);
      await page.bringToFront();
      model = new CarefulModel(task.intents, KEEL_DIALECT);
      requests = [];
      requestAt = [];
      gaveUp = undefined;
      output = 0;
      const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
      const from = client.mark();
      const t0 = performance.now();
      let error: string | undefined;
      try {
        const { runId } = await client.sendOk<{ runId: string }>({
          type: 'turn.submit',
          threadId,
          input: { text: task.goal },
        });
        await client.waitFor(
          (e) => e.type === 'turn.complete' && (e as { runId?: string }).runId === runId,
          180_000,
          from,
        );
      } catch (err) {
        error = err instanceof Error ? err.message.split('\n')[0] : String(err);
      }
      const wallMs = performance.now() - t0;
      const state = await page.evaluate(task.state).catch(() => undefined);
      await page.close();
      const bodies = requests.map((r) => r.body as unknown as ChatRequest);
      const last = bodies[bodies.length - 1]?.messages ?? [];
      const calls = (last as Msg[]).flatMap((m) => m.tool_calls ?? []);
      const results = toolTexts(last as Msg[]);
      const success = !error && !gaveUp && check(state);
      return {
        agent: 'keel',
        task: task.id,
        success,
        ...(success ? {} : { lastResults: results.slice(-2) }),
        ...(gaveUp ? { gaveUp } : {}),
        ...(error ? { error } : {}),
        toolCalls: calls.length,
        tools: [...new Set(calls.map((c) => c.function.name))],
        requests: bodies,
        outputTokens: output,
        wallMs,
        calls: keelCallTimings(
          calls.map((c) => c.function.name),
          requestAt,
          client.events.slice(from),
        ),
        trace: calls.map(
          (c, i) => `${c.function.name} ${c.function.arguments} → ${firstLine(results[i] ?? '')}`,
        ),
      };
    },
    async close() {
      await ext.close();
      await server.close();
    },
  };
}

/**
 * Keel's calls timed from the model requests and the results' `createdAt`: the n-th result
 * (calls run one at a time here) answers the n-th call the model asked for.
 */
function keelCallTimings(
  names: readonly string[],
  requestAt: readonly number[],
  events: readonly unknown[],
): CallTiming[] {
  const results = new Map<string, { at: number; timing?: Record<string, number> }>();
  for (const ev of events) {
    const item = (ev as { item?: Record<string, unknown> }).item;
    if (item?.kind !== 'tool_result' || typeof item.toolCallId !== 'string') continue;
    if (results.has(item.toolCallId) || typeof item.createdAt !== 'number') continue;
    const timing = (item.details as { timing?: Record<string, number> } | undefined)?.timing;
    results.set(item.toolCallId, { at: item.createdAt, ...(timing ? { timing } : {}) });
  }
  const ordered = [...results.values()];
  return names.map((tool, i) => {
    const next = requestAt[i + 1] ?? Number.NaN;
    const result = ordered[i];
    if (!result) return { tool, ms: next - requestAt[i] };
    return {
      tool,
      ms: next - requestAt[i],
      toResultMs: result.at - requestAt[i],
      afterMs: next - result.at,
      ...(result.timing ? { phases: result.timing } : {}),
    };
  });
}

const round1 = (x: number) => Math.round(x * 10) / 10;

// ---------------------------------------------------------------- Playwright MCP

const CALL_TIMEOUT_MS = 180_000;

/** A run that never started (its setup failed): counted as a failed task, never dropped. */
const EMPTY_RUN: Omit<TaskRun, 'agent' | 'task'> = {
  success: false,
  toolCalls: 0,
  tools: [],
  requests: [],
  outputTokens: 0,
  wallMs: 0,
  calls: [],
  trace: [],
};

/** What the host says before the task (Playwright MCP brings no system prompt of its own). */
export const PEER_SYSTEM_PROMPT =
  'You are a browser agent. Use the browser tools to do the task, then say that it is done.';

export async function startPlaywrightMcp(): Promise<PeerAgent & { version: string }> {
  const cli = join(REPO_ROOT, 'node_modules/@playwright/mcp/cli.js');
  const outputDir = mkdtempSync(join(tmpdir(), 'keel-peer-pw-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      cli,
      '--headless',
      '--isolated',
      '--no-sandbox',
      '--executable-path',
      chromiumExecutable(),
      '--output-dir',
      outputDir,
    ],
    cwd: outputDir,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'keel-bench', version: '1.0.0' });
  await client.connect(transport);
  const version = client.getServerVersion()?.version ?? 'unknown';
  const listed = await client.listTools();
  const tools = listed.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
  }));
  const callText = async (name: string, args: Record<string, unknown>) => {
    // The SDK's default 60 s request timeout is shorter than a first call (the browser
    // launching) takes on a loaded machine.
    const r = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })) as {
      content?: { type: string; text?: string }[];
    };
    return (r.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  };
  /** The judge's look at the app (not the model's): evaluates `expr` through the server. */
  const evaluate = async (expr: string): Promise<unknown> => {
    const text = await callText('browser_evaluate', {
      function: `() => JSON.stringify(${expr} ?? null)`,
    });
    const m = /### Result\n([\s\S]*?)(\n###|$)/.exec(text);
    try {
      return JSON.parse(JSON.parse(m?.[1]?.trim() ?? 'null'));
    } catch {
      return undefined;
    }
  };

  return {
    name: 'playwright-mcp',
    version,
    async run(task, url, check) {
      try {
        await callText('browser_navigate', { url });
        await poll(() => evaluate(task.state), Boolean, 10_000);
      } catch (err) {
        const error = `setup: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        return { ...EMPTY_RUN, agent: 'playwright-mcp', task: task.id, error };
      }
      const dialect: Dialect = PLAYWRIGHT_DIALECT;
      const model = new CarefulModel(task.intents, dialect);
      const messages: Msg[] = [
        { role: 'system', content: PEER_SYSTEM_PROMPT },
        { role: 'user', content: task.goal },
      ];
      const requests: ChatRequest[] = [];
      const texts: string[] = [];
      const trace: string[] = [];
      const calls: CallTiming[] = [];
      const names = new Set<string>();
      let output = 0;
      let gaveUp: string | undefined;
      let error: string | undefined;
      let n = 0;
      const t0 = performance.now();
      try {
        for (;;) {
          const asked = performance.now();
          requests.push({ messages: structuredClone(messages), tools });
          const move = model.next(texts);
          if ('done' in move) {
            gaveUp = move.gaveUp;
            output += outputTokens('text', 'Done.');
            messages.push({ role: 'assistant', content: 'Done.' });
            break;
          }
          const { name, args } = move.call;
          output += outputTokens(name, args);
          const id = `call_${++n}`;
          messages.push({
            role: 'assistant',
            tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }],
          });
          const text = await callText(name, args);
          calls.push({ tool: name, ms: round1(performance.now() - asked) });
          names.add(name);
          messages.push({ role: 'tool', content: text, ...{ tool_call_id: id } });
          texts.push(text);
          trace.push(`${name} ${JSON.stringify(args)} → ${firstLine(text)}`);
        }
      } catch (err) {
        error = err instanceof Error ? err.message.split('\n')[0] : String(err);
      }
      const wallMs = performance.now() - t0;
      const state = await evaluate(task.state);
      const success = !error && !gaveUp && check(state);
      return {
        agent: 'playwright-mcp',
        task: task.id,
        success,
        ...(success ? {} : { lastResults: texts.slice(-2) }),
        ...(gaveUp ? { gaveUp } : {}),
        ...(error ? { error } : {}),
        toolCalls: n,
        tools: [...names],
        requests,
        outputTokens: output,
        wallMs,
        calls,
        trace,
      };
    },
    async close() {
      await client.close();
    },
  };
}
