import type { Recorder } from '../../../src/workflows/recording/recorder';
import 'fake-indexeddb/auto';
import { z } from 'zod';
import { Engine, registerBuiltins } from '../../../src/engine';
import type { EngineOptions, FaultInjector } from '../../../src/engine/host/types';
import { AgentEvent, DirectTransport, type OpInput } from '../../../src/protocol';
import { ScriptedProvider, type ScriptEntry } from '../../../src/providers/scripted';
import type { ModelInfo, ProviderResolver } from '../../../src/providers/types';
import { Store, type DexieStore } from '../../../src/store/store';
import { defaultSettings } from '../../../src/store/settings-repo';
import { ToolRegistry, type RegisteredTool } from '../../../src/tools/registry';
import type { AgentTool } from '../../../src/tools/types';

let dbCounter = 0;

export interface TestModel {
  toolUse?: boolean;
  vision?: boolean;
  pricing?: ModelInfo['pricing'];
}

/** A resolver with one scripted provider "p1" (and nothing else). */
export function scriptedResolver(
  provider: ScriptedProvider,
  model0: TestModel = {},
  models: Record<string, TestModel> = {},
): ProviderResolver {
  return {
    resolve: async (id) => (id === 'p1' ? provider : null),
    modelInfo: async (_id, m) => {
      const model = models[m] ?? model0;
      return {
        id: m,
        toolUse: model.toolUse ?? true,
        vision: model.vision ?? false,
        contextWindow: 200_000,
        maxOutputTokens: 4096,
        ...(model.pricing ? { pricing: model.pricing } : {}),
      };
    },
    transportIdentity: async (id) => (id === 'p1' ? { kind: 'scripted' } : null),
  };
}

/** Deterministic ids: prefix + counter. */
export function counterIds(space = '') {
  let n = 0;
  return { next: (p: string) => `${p}_${space}${++n}` };
}

export class TestClient {
  readonly events: AgentEvent[] = [];
  private n = 0;
  private waiters: { pred: (e: AgentEvent) => boolean; resolve: (e: AgentEvent) => void }[] = [];

  constructor(
    readonly transport: DirectTransport,
    readonly clientId = 'ui-1',
  ) {
    transport.onEvent((e) => {
      // Every event the engine sends must match the wire contract.
      const parsed = AgentEvent.safeParse(e);
      if (!parsed.success)
        throw new Error(
          `invalid event ${JSON.stringify(e).slice(0, 300)}: ${parsed.error.message}`,
        );
      this.events.push(e);
      for (const w of [...this.waiters]) {
        if (w.pred(e)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    });
  }

  /** Send an op; resolves with its command.ack or command.reject. */
  send(
    op: OpInput | Record<string, unknown>,
    submissionId = `s${++this.n}`,
  ): Promise<Extract<AgentEvent, { type: 'command.ack' | 'command.reject' }>> {
    const p = this.waitFor(
      (e) =>
        (e.type === 'command.ack' || e.type === 'command.reject') &&
        e.submissionId === submissionId,
      10_000,
      false,
    );
    this.transport.send({ clientId: this.clientId, submissionId, ...op });
    return p as Promise<Extract<AgentEvent, { type: 'command.ack' | 'command.reject' }>>;
  }

  async ack<T = Record<string, unknown>>(op: OpInput | Record<string, unknown>): Promise<T> {
    const r = await this.send(op);
    if (r.type !== 'command.ack')
      throw new Error(
        `expected ack for ${String((op as { type: string }).type)}, got ${r.code}: ${r.message}`,
      );
    return (r.result ?? {}) as T;
  }

  waitFor(
    pred: (e: AgentEvent) => boolean,
    timeoutMs = 10_000,
    includePast = true,
  ): Promise<AgentEvent> {
    if (includePast) {
      const hit = this.events.find(pred);
      if (hit) return Promise.resolve(hit);
    }
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      this.waiters.push(w);
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(
            new Error(
              `timed out waiting for event; last events: ${this.events
                .slice(-8)
                .map((e) => e.type)
                .join(', ')}`,
            ),
          );
        }
      }, timeoutMs);
    });
  }

  turnComplete(runId: string) {
    return this.waitFor((e) => e.type === 'turn.complete' && e.runId === runId) as Promise<
      Extract<AgentEvent, { type: 'turn.complete' }>
    >;
  }

  of<T extends AgentEvent['type']>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.events.filter((e) => e.type === type) as Extract<AgentEvent, { type: T }>[];
  }
}

export interface Rig {
  engine: Engine;
  store: DexieStore;
  registry: ToolRegistry;
  provider: ScriptedProvider;
  client: TestClient;
  dbName: string;
  /** Create a thread and submit a turn; resolves with the ids. */
  submit(
    text: string,
    threadId?: string,
  ): Promise<{ threadId: string; turnId: string; runId: string }>;
  /** Open a second engine over the same database (after a "crash"). */
  reopen(opts?: Partial<RigOptions>): Promise<Rig>;
}

export interface RigOptions {
  script: ScriptEntry[];
  tools: AgentTool[];
  model: TestModel;
  /** Per-model capabilities by model name (others use `model`). */
  models: Record<string, TestModel>;
  options: Partial<EngineOptions>;
  faults: FaultInjector;
  settings: Partial<ReturnType<typeof defaultSettings>>;
  provider: ScriptedProvider;
  dbName: string;
  activeTabId: number;
  /** Recording by demonstration (src/workflows/recording/recorder.ts), over a fake host. */
  recorder: Recorder;
  /** Distinguishes the ids of a reopened engine from those of the one before it. */
  idSpace: string;
  /** Tabs the fake browser knows (URL and title by tab id); the test may change them. */
  tabs: Map<number, { url: string; title: string }>;
  /** The page tools (WebMCP) the fake browser finds in a tab (BrowserEnv.pageTools). */
  pageTools: (tabId: number) => Promise<readonly RegisteredTool[]>;
  /** Task recordings: the store's own frames table (thread.recording). */
  frames: boolean;
}

export async function makeRig(opts: Partial<RigOptions> = {}): Promise<Rig> {
  const dbName = opts.dbName ?? `keel-test-${++dbCounter}-${Math.random().toString(36).slice(2)}`;
  const store = Store.open(dbName);
  const registry = new ToolRegistry();
  const provider = opts.provider ?? new ScriptedProvider(opts.script ?? []);
  const engine = new Engine({
    store,
    registry,
    providers: scriptedResolver(provider, opts.model, opts.models),
    clock: { now: () => Date.now() },
    ids: counterIds(opts.idSpace),
    ...(opts.faults ? { faults: opts.faults } : {}),
    ...(opts.activeTabId !== undefined || opts.recorder || opts.tabs || opts.frames
      ? {
          browser: {
            activeTabId: async () => opts.activeTabId,
            ...(opts.recorder ? { recorder: opts.recorder } : {}),
            ...(opts.pageTools ? { pageTools: opts.pageTools } : {}),
            ...(opts.frames ? { frames: store.frames } : {}),
            ...(opts.tabs
              ? {
                  tabLook: async (id: number) =>
                    opts.tabs?.get(id) ? { ...opts.tabs.get(id)! } : undefined,
                }
              : {}),
          },
        }
      : {}),
    log: { warn: () => undefined, error: () => undefined },
    options: { generateTitles: false, ...opts.options },
  });
  registerBuiltins(engine);
  for (const t of opts.tools ?? []) registry.register(t);
  if (!opts.dbName) {
    await store.settings.put({
      ...defaultSettings(),
      providers: [{ id: 'p1', kind: 'openai' }],
      defaultModel: { providerId: 'p1', model: 'test-model' },
      ...opts.settings,
    });
  }
  await engine.start();
  const client = new TestClient(new DirectTransport(engine), `ui-${opts.idSpace ?? ''}1`);
  await client.ack({ type: 'initialize', subscribe: ['*'] });
  const rig: Rig = {
    engine,
    store,
    registry,
    provider,
    client,
    dbName,
    async submit(text, threadId) {
      const tid =
        threadId ?? (await client.ack<{ threadId: string }>({ type: 'thread.create' })).threadId;
      const r = await client.ack<{ turnId: string; runId: string }>({
        type: 'turn.submit',
        threadId: tid,
        input: { text },
      });
      return { threadId: tid, ...r };
    },
    async reopen(more = {}) {
      engine.kill();
      return makeRig({
        ...opts,
        ...more,
        dbName,
        provider: more.provider ?? provider,
        idSpace: `${opts.idSpace ?? ''}r`,
      });
    },
  };
  return rig;
}

/** A simple tool for tests, with a counter of executions. */
export function testTool(
  name: string,
  opts: {
    effects?: 'read' | 'write';
    level?: 'L0' | 'L1' | 'L2' | 'builtin';
    origin?: string | (() => string);
    fail?: boolean | ((n: number) => boolean);
    recovery?: 'retry-safe' | 'inspect-first' | 'never-retry';
    delayMs?: number;
    onRun?: () => void;
    gate?: Promise<unknown>;
  } = {},
): AgentTool<{ value?: string }> & { runs: number } {
  const tool = {
    runs: 0,
    name,
    label: `Test ${name}`,
    description: `A test tool ${name}`,
    parameters: z.object({ value: z.string().optional() }),
    level: opts.level ?? 'L1',
    effects: opts.effects ?? 'read',
    ...(opts.recovery ? { recovery: opts.recovery } : {}),
    async resolveTarget() {
      const origin =
        typeof opts.origin === 'function' ? opts.origin() : (opts.origin ?? 'https://shop.example');
      return { origin, url: `${origin}/page`, tabId: 7, title: 'Example' };
    },
    async execute(_id: string, params: { value?: string }, signal: AbortSignal) {
      tool.runs += 1;
      opts.onRun?.();
      // A gate holds the call open until the test releases it, independent of machine load.
      if (opts.gate !== undefined) await opts.gate;
      if (opts.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, opts.delayMs);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      }
      const fail = typeof opts.fail === 'function' ? opts.fail(tool.runs) : opts.fail;
      if (fail) throw new Error(`${name} failed (run ${tool.runs})`);
      return {
        content: [{ type: 'text' as const, text: `${name} ok: ${params.value ?? ''}` }],
        details: { ran: tool.runs },
      };
    },
  };
  return tool;
}
