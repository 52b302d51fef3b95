/**
 * The engine in Node for the benchmarks, built the way test/unit/engine/harness.ts builds it:
 * fake-indexeddb, a DirectTransport client, and a provider that answers instantly.
 */
import 'fake-indexeddb/auto';
import { z } from 'zod';
import { Engine, registerBuiltins } from '../../src/engine';
import { DirectTransport, type AgentEvent, type Op, type OpInput } from '../../src/protocol';
import type {
  ModelInfo,
  Provider,
  ProviderRequest,
  ProviderResolver,
  StreamEvent,
} from '../../src/providers/types';
import { defaultSettings } from '../../src/store/settings-repo';
import { Store, type DexieStore } from '../../src/store/store';
import { ToolRegistry } from '../../src/tools/registry';
import type { AgentTool } from '../../src/tools/types';

/** A builtin read tool that does nothing: the tool step is pure engine overhead. */
export const noopTool: AgentTool<{ i: number }> = {
  name: 'noop',
  label: 'No-op',
  description: 'Does nothing (benchmark).',
  parameters: z.object({ i: z.number() }),
  level: 'builtin',
  effects: 'read',
  async execute() {
    return { content: [{ type: 'text', text: 'ok' }] };
  },
};

/**
 * Answers instantly: a tool call to `tool` until the conversation holds `steps` tool results
 * since the last user message, then a short final answer. No cloning, no timers.
 */
export class InstantProvider implements Provider {
  readonly id = 'bench';
  readonly kind = 'scripted' as const;
  requests = 0;
  constructor(
    private readonly steps: () => number,
    private readonly tool: { name: string; args: (i: number) => unknown },
  ) {}

  stream(req: ProviderRequest): AsyncIterable<StreamEvent> {
    this.requests += 1;
    let results = 0;
    for (let i = req.messages.length - 1; i >= 0 && req.messages[i].role !== 'user'; i--)
      if (req.messages[i].role === 'tool') results++;
    const done = results >= this.steps();
    const tool = this.tool;
    return (async function* (): AsyncGenerator<StreamEvent> {
      if (done) {
        yield { type: 'text_delta', text: 'Done.' };
        yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 2 } };
        yield { type: 'stop', reason: 'end' };
        return;
      }
      yield { type: 'text_delta', text: `Step ${results + 1}.` };
      yield { type: 'tool_call_start', index: 0, id: `call_${results + 1}`, name: tool.name };
      yield {
        type: 'tool_call_delta',
        index: 0,
        argsFragment: JSON.stringify(tool.args(results + 1)),
      };
      yield { type: 'tool_call_end', index: 0 };
      yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } };
      yield { type: 'stop', reason: 'tool_use' };
    })();
  }
}

export class BenchClient {
  private n = 0;
  private readonly waiters = new Set<{
    pred: (e: AgentEvent) => boolean;
    resolve: (e: AgentEvent) => void;
  }>();
  constructor(readonly transport: DirectTransport) {
    transport.onEvent((e) => {
      for (const w of [...this.waiters]) {
        if (w.pred(e)) {
          this.waiters.delete(w);
          w.resolve(e);
        }
      }
    });
  }

  waitFor(pred: (e: AgentEvent) => boolean, timeoutMs = 60_000): Promise<AgentEvent> {
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: (e: AgentEvent) => (clearTimeout(t), resolve(e)) };
      const t = setTimeout(() => {
        this.waiters.delete(w);
        reject(new Error('bench client: timed out waiting for an event'));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  async ok<T = Record<string, unknown>>(op: OpInput): Promise<T> {
    const submissionId = `b${++this.n}`;
    const answer = this.waitFor(
      (e) =>
        (e.type === 'command.ack' || e.type === 'command.reject') &&
        e.submissionId === submissionId,
    );
    this.transport.send({ clientId: 'bench', submissionId, ...op } as unknown as Op);
    const a = await answer;
    if (a.type !== 'command.ack')
      throw new Error(
        `${op.type} rejected: ${a.type === 'command.reject' ? `${a.code}: ${a.message}` : ''}`,
      );
    return (a.result ?? {}) as T;
  }
}

export interface NodeRig {
  engine: Engine;
  store: DexieStore;
  client: BenchClient;
  dbName: string;
  /** New thread, one turn, resolves when turn.complete arrives; returns ms and the thread id. */
  turn(text?: string): Promise<{ ms: number; threadId: string }>;
  close(): void;
}

export async function makeNodeRig(provider: Provider, tools: AgentTool[] = []): Promise<NodeRig> {
  const dbName = `keel-bench-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const store = Store.open(dbName);
  const registry = new ToolRegistry();
  const info: ModelInfo = {
    id: 'bench-model',
    toolUse: true,
    vision: false,
    contextWindow: 1_000_000,
    maxOutputTokens: 4096,
  };
  const resolver: ProviderResolver = {
    resolve: async (id) => (id === 'p1' ? provider : null),
    modelInfo: async () => info,
    transportIdentity: async (id) => (id === 'p1' ? { kind: 'scripted' } : null),
  };
  const engine = new Engine({
    store,
    registry,
    providers: resolver,
    log: { warn: () => undefined, error: () => undefined },
    options: { generateTitles: false },
  });
  registerBuiltins(engine);
  for (const t of tools) registry.register(t);
  await store.settings.put({
    ...defaultSettings(),
    providers: [{ id: 'p1', kind: 'openai' }],
    defaultModel: { providerId: 'p1', model: 'bench-model' },
  });
  await engine.start();
  const client = new BenchClient(new DirectTransport(engine));
  await client.ok({ type: 'initialize', subscribe: ['*'] });
  return {
    engine,
    store,
    client,
    dbName,
    async turn(text = 'go') {
      const { threadId } = await client.ok<{ threadId: string }>({ type: 'thread.create' });
      const t0 = performance.now();
      const { runId } = await client.ok<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text },
      });
      const done = await client.waitFor(
        (e) => e.type === 'turn.complete' && e.runId === runId,
        120_000,
      );
      const ms = performance.now() - t0;
      if (done.type === 'turn.complete' && done.stopReason !== 'end')
        throw new Error(`bench turn ended ${done.stopReason}: ${done.error?.message ?? ''}`);
      return { ms, threadId };
    },
    close() {
      engine.kill();
      store.close();
    },
  };
}
