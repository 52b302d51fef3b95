/**
 * Helpers for the browser-tool e2e tests that go THROUGH THE ENGINE: the built extension in
 * Chromium, the fixture site on two loopback origins, and a scripted model whose replies are
 * small functions of the conversation it receives (the tool results the engine sent back).
 *
 * A test opens a fixture page in a tab, brings it to front (the thread's tab is the active tab
 * when the turn starts), and runs a turn: each model request takes the next step of the turn's
 * plan; a step sees the conversation (e.g. the latest snapshot, to pick a ref) and answers with
 * tool calls. When the plan runs out the model answers "Done.".
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { DEFAULT_DIST, EngineClient, launchExtension, startModelServer } from '../harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from '../harness';
import type { Decision, EventOf, Item, ThreadSnapshot } from '../../../src/protocol';
import { serveFixtureSite } from '../browser/support/server';

export const FIXTURE_DIR = resolve('test/fixtures/site');

export const isTitleRequest = (r: RecordedRequest) =>
  JSON.stringify(r.body).includes('You write titles');

export type ToolCallItem = Extract<Item, { kind: 'tool_call' }>;
export type ToolResultItem = Extract<Item, { kind: 'tool_result' }>;
export type ApprovalRequest = EventOf<'approval.request'>;

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The conversation one model request carries (OpenAI Chat Completions shape). */
export class Conversation {
  constructor(readonly request: RecordedRequest) {}

  get messages(): ChatMessage[] {
    return (this.request.body.messages ?? []) as ChatMessage[];
  }

  /** Tool names offered to the model in this request. */
  get toolNames(): string[] {
    const tools = (this.request.body.tools ?? []) as { function: { name: string } }[];
    return tools.map((t) => t.function.name);
  }

  /** Text of every tool message, oldest first. */
  toolTexts(): string[] {
    return this.messages
      .filter((m) => m.role === 'tool')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  }

  /** The newest tool message (what the previous step's call returned). */
  last(): string {
    const all = this.toolTexts();
    if (!all.length) throw new Error('no tool result in the conversation yet');
    return all[all.length - 1];
  }

  /**
   * The ref of the element whose line matches `pattern`, from the newest tool result that has
   * one (snapshot or find output: `- role "name" [ref=e12]`).
   */
  ref(pattern: RegExp): string {
    const texts = this.toolTexts();
    for (let i = texts.length - 1; i >= 0; i--) {
      const found = refIn(texts[i], pattern);
      if (found) return found;
    }
    throw new Error(`no ref for ${pattern} in the conversation:\n${texts.join('\n---\n')}`);
  }
}

/** First `[ref=…]` on a line matching `pattern`. */
export function refIn(text: string, pattern: RegExp): string | undefined {
  for (const line of text.split('\n')) {
    const m = /\[ref=((?:f\d+)?e\d+)\]/.exec(line);
    if (m && pattern.test(line)) return m[1];
  }
  return undefined;
}

/** One model reply of a turn's plan: fixed, or decided from the conversation (may be async). */
export type Step = ScriptedReply | ((c: Conversation) => ScriptedReply | Promise<ScriptedReply>);

/** Shorthand for a reply that calls tools. */
export function call(
  name: string,
  args: Record<string, unknown> = {},
  ...more: [string, Record<string, unknown>][]
): ScriptedReply {
  return { toolCalls: [{ name, args }, ...more.map(([n, a]) => ({ name: n, args: a }))] };
}

export interface TurnOptions {
  /**
   * Answer each approval request (default: fail the test — no approval was expected); may take
   * its time, as a user does.
   */
  approve?: (req: ApprovalRequest) => Decision | Promise<Decision>;
  /** A per-turn model (turn.submit overrides). */
  model?: string;
  /** Runs the moment turn.complete arrives, before anything else is asked of the engine. */
  onComplete?: () => Promise<void>;
  /** Continue this thread instead of creating one. */
  threadId?: string;
  timeoutMs?: number;
}

export interface TurnOutcome {
  threadId: string;
  runId: string;
  complete: EventOf<'turn.complete'>;
  approvals: ApprovalRequest[];
  /** The turn's items, from the persisted path (root → leaf, this turn only). */
  items: Item[];
  calls: ToolCallItem[];
  results: ToolResultItem[];
  /** Model requests of this turn (titles excluded), in order. */
  requests: RecordedRequest[];
  /** The results of tool `name`, in call order. */
  resultsOf(name: string): ToolResultItem[];
  /** The single result of tool `name` (fails when there is not exactly one). */
  result(name: string): ToolResultItem;
}

/** The text blocks of a tool result, joined. */
export function resultText(r: ToolResultItem): string {
  return r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

export interface ToolSession {
  ext: LaunchedExtension;
  server: ModelServer;
  client: EngineClient;
  panel: Page;
  /** The main fixture origin (allowed by a site rule unless a test says otherwise). */
  main: string;
  /** The second fixture origin: no site rule, so writes there ask. */
  other: string;
  /** Opens `path` of the fixture site in a new tab, brings it to front, returns its tab id. */
  open(path: string, origin?: string): Promise<{ page: Page; tabId: number }>;
  /** The tab id of a page (looked up through chrome.tabs from the panel page). */
  tabIdOf(page: Page): Promise<number>;
  /** The tab's URL as Chrome reports it now (Playwright's page.url() can lag behind under load). */
  tabUrl(tabId: number): Promise<string | undefined>;
  /** Runs one turn with the given model plan and waits for turn.complete. */
  turn(text: string, steps: Step[], options?: TurnOptions): Promise<TurnOutcome>;
  /** chrome.* calls evaluated in the panel page (an extension page). */
  inPanel<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  close(): Promise<void>;
}

/**
 * The build under test: dist/, or KEEL_E2E_DIST (a private build, so another engineer's
 * `vite build` into dist/ cannot pull the content script out from under a running test).
 */
export function distUnderTest(): string {
  const dist = process.env.KEEL_E2E_DIST ? resolve(process.env.KEEL_E2E_DIST) : DEFAULT_DIST;
  const manifest = join(dist, 'manifest.json');
  if (!existsSync(manifest)) throw new Error(`${dist} has no build: run \`npm run build\` first.`);
  // `vite build` alone leaves the content script out: every page tool would fail to inject.
  const declared = (JSON.parse(readFileSync(manifest, 'utf8')) as { content_scripts?: unknown[] })
    .content_scripts?.length;
  if (!declared || !existsSync(join(dist, 'content-script.js'))) {
    throw new Error(
      `${dist} has no content script: run \`npm run build\` (vite build + scripts/build-content-script.mjs).`,
    );
  }
  return dist;
}

export async function startToolSession(
  options: { model?: string; allowMain?: boolean; fixtureDir?: string } = {},
): Promise<ToolSession> {
  const dist = distUnderTest();
  const site = await serveFixtureSite(options.fixtureDir ?? FIXTURE_DIR);
  let plan: Step[] = [];
  const turnRequests: RecordedRequest[] = [];
  // One step per model request: the dispatcher re-queues itself so the script never runs dry.
  const dispatch = async (r: RecordedRequest): Promise<ScriptedReply> => {
    server.push(dispatch);
    turnRequests.push(r);
    const step = plan.shift() ?? { text: 'Done.' };
    return typeof step === 'function' ? step(new Conversation(r)) : step;
  };
  const server: ModelServer = await startModelServer({
    script: [dispatch],
    respond: (r) => (isTitleRequest(r) ? { text: 'Browser tools' } : undefined),
  });
  const ext = await launchExtension({ dist });
  const panel = await ext.openPanel();
  const client = await EngineClient.connect(panel, { timeoutMs: 15_000 });
  await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  const provider = server.provider('openai', 'scripted');
  await client.sendOk({
    type: 'settings.update',
    patch: {
      providers: [provider],
      defaultModel: { providerId: provider.id, model: options.model ?? 'gpt-4o-mini' },
    },
  });
  if (options.allowMain !== false)
    await client.sendOk({ type: 'siteRules.set', origin: site.main.origin, rule: 'allow' });

  // Playwright's evaluate typing cannot relate a generic argument to its serialized form.
  const inPanel = <R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> =>
    panel.evaluate(fn as never, arg) as Promise<R>;

  /** Tab ids grow, so the newest tab at the URL is this page (a closed one may linger briefly). */
  async function tabIdOf(page: Page): Promise<number> {
    const url = page.url();
    const ids = await inPanel(
      async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id ?? -1),
      url,
    );
    const id = Math.max(-1, ...ids);
    expect(id, `tab of ${url}`).toBeGreaterThan(0);
    return id;
  }

  async function snapshotOf(threadId: string): Promise<ThreadSnapshot> {
    const from = client.mark();
    await client.sendOk({ type: 'thread.subscribe', threadId });
    const ev = await client.waitForEvent(
      'thread.snapshot',
      (e) => e.snapshot.thread.threadId === threadId,
      10_000,
      from,
    );
    return ev.snapshot;
  }

  return {
    ext,
    server,
    client,
    panel,
    main: site.main.origin,
    other: site.other.origin,
    tabUrl: (tabId) =>
      inPanel(
        async (id) =>
          chrome.tabs.get(id).then(
            (t) => t.url,
            () => undefined,
          ),
        tabId,
      ),
    inPanel,
    tabIdOf,
    async open(path, origin = site.main.origin) {
      const page = await ext.context.newPage();
      await page.goto(`${origin}/${path}`, { waitUntil: 'load' });
      await page.bringToFront();
      return { page, tabId: await tabIdOf(page) };
    },
    async turn(text, steps, opts = {}) {
      plan = [...steps];
      turnRequests.length = 0;
      const threadId =
        opts.threadId ??
        (await client.sendOk<{ threadId: string }>({ type: 'thread.create' })).threadId;
      const before = opts.threadId ? (await snapshotOf(threadId)).path.length : 0;
      const from = client.mark();
      const { runId } = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text },
        ...(opts.model ? { overrides: { model: opts.model } } : {}),
      });
      const approvals: ApprovalRequest[] = [];
      let cursor = from;
      let complete: EventOf<'turn.complete'>;
      const deadline = opts.timeoutMs ?? 40_000;
      for (;;) {
        const ev = await client.waitFor(
          (e) =>
            (e.type === 'turn.complete' && e.runId === runId) ||
            (e.type === 'approval.request' && e.runId === runId),
          deadline,
          cursor,
        );
        cursor = client.events.indexOf(ev) + 1;
        if (ev.type === 'turn.complete') {
          complete = ev as EventOf<'turn.complete'>;
          await opts.onComplete?.();
          break;
        }
        const req = ev as ApprovalRequest;
        approvals.push(req);
        if (!opts.approve) {
          await client.sendOk({
            type: 'approval.response',
            approvalId: req.approvalId,
            decision: 'deny_stop',
          });
          throw new Error(
            `unexpected approval request for ${req.tool.name} on ${req.target.origin}`,
          );
        }
        await client.sendOk({
          type: 'approval.response',
          approvalId: req.approvalId,
          decision: await opts.approve(req),
        });
      }
      // Every planned step was asked for: the turn went as far as the test meant it to.
      const unused = plan.splice(0);
      expect(unused.length, `model steps left unused (stop reason ${complete.stopReason})`).toBe(0);
      const snap = await snapshotOf(threadId);
      const items = snap.path.slice(before);
      const calls = items.filter((i): i is ToolCallItem => i.kind === 'tool_call');
      const results = items.filter((i): i is ToolResultItem => i.kind === 'tool_result');
      const resultsOf = (name: string) => results.filter((r) => r.name === name);
      return {
        threadId,
        runId,
        complete,
        approvals,
        items,
        calls,
        results,
        requests: [...turnRequests],
        resultsOf,
        result(name) {
          const found = resultsOf(name);
          expect(
            found.map((r) => r.name),
            `results of ${name}`,
          ).toHaveLength(1);
          return found[0];
        },
      };
    },
    async close() {
      await ext.close();
      await server.close();
      await site.close();
    },
  };
}

/** The tool message that answered call `id` in a request, and what follows it. */
export function toolMessage(r: RecordedRequest, toolCallId: string): string {
  const messages = (r.body.messages ?? []) as ChatMessage[];
  const m = messages.find((x) => x.role === 'tool' && x.tool_call_id === toolCallId);
  if (!m) throw new Error(`no tool message for ${toolCallId}`);
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** The request that carried the result of call `toolCallId` first (the one after the call). */
export function requestAfter(outcome: TurnOutcome, toolCallId: string): RecordedRequest {
  const r = outcome.requests.find((x) => x.raw.includes(`"tool_call_id":"${toolCallId}"`));
  if (!r) throw new Error(`no request carried the result of ${toolCallId}`);
  return r;
}
