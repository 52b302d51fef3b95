import type { FaultInjector } from '../../../src/engine/host/types';
import type { AgentEvent } from '../../../src/protocol';
import { buildContext } from '../../../src/engine/context/context-builder';
import {
  ScriptedProvider,
  type RecordedRequest,
  type ScriptedReply,
} from '../../../src/providers/scripted';
import type { AgentTool } from '../../../src/tools/types';
import { makeRig, type Rig } from '../engine/harness';

/**
 * The crash harness (issue 3): the engine awaits `FaultInjector.at(name)` at every effect
 * boundary (before/after each transaction, first stream event, end of stream, tool start and
 * return). `KillSwitch` counts the boundaries and, at the chosen one, kills the engine there: the
 * boundary never resolves, every later boundary throws, nothing more is written or emitted —
 * like a worker that Chrome stopped. A new engine is then opened over the same database.
 */
export class KillSwitch implements FaultInjector {
  readonly hits: string[] = [];
  killed: string | null = null;
  /** Boundaries count only once armed (after the scenario's setup). */
  armed = false;
  onKill: () => void = () => undefined;
  /** Resolves at the kill: a killed engine delivers nothing more (no event, no answer). */
  readonly dead: Promise<void>;
  private markDead: () => void = () => undefined;

  /** Kill at the `occurrence`-th hit (1-based) of boundary `name`; null = never. */
  constructor(private readonly killAt: { name: string; occurrence: number } | null) {
    this.dead = new Promise((r) => (this.markDead = r));
  }

  at(name: string): Promise<void> | void {
    if (!this.armed) return;
    this.hits.push(name);
    const seen = this.hits.filter((h) => h === name).length;
    if (
      this.killAt &&
      this.killAt.name === name &&
      this.killAt.occurrence === seen &&
      !this.killed
    ) {
      this.killed = name;
      this.onKill();
      this.markDead();
      return new Promise<void>(() => undefined);
    }
  }
}

/** What a scenario may do while it runs (through whichever engine is alive). */
export interface ScenarioIO {
  client(): Rig['client'];
  threadId: string;
  turnId(): string | undefined;
  acked: { steers: string[] };
  /** Resolves when the steer was answered (or at once when there is no turn yet). */
  sendSteer(text: string): Promise<void>;
  sendInterrupt(): void;
}

export interface Scenario {
  name: string;
  reply(req: RecordedRequest): ScriptedReply;
  tools(io: ScenarioIO): AgentTool[];
  /** Sites allowed before the turn (e.g. so a write runs without an approval). */
  allow?: string[];
  /** What the user does right after submitting. */
  afterSubmit?(io: ScenarioIO): Promise<void>;
  /** Resolve a paused run: the autopilot's choice. */
  onInterrupted?: 'resume' | 'stop';
  /** Counters to check afterwards (e.g. a never-retry write ran at most once). */
  maxRuns?: Record<string, number>;
}

export interface TrialResult {
  killedAt: string | null;
  hits: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Send through a client that may belong to a dead engine: never wait long for its answer. */
export function sendBounded(
  client: Rig['client'],
  op: Parameters<Rig['client']['send']>[0],
): Promise<unknown> {
  return Promise.race([client.send(op).catch(() => null), sleep(1_500)]);
}

/**
 * Run one trial: submit the scenario's turn on engine A (killed at boundary `killAt`, or never),
 * then — if A died — open engine B over the same database and let the autopilot answer whatever
 * the run waits for until the thread is idle. Then check every invariant.
 */
export async function runTrial(
  scenario: Scenario,
  killAt: { name: string; occurrence: number } | null,
): Promise<TrialResult> {
  const kill = new KillSwitch(killAt);
  const provider = new ScriptedProvider(
    Array.from({ length: 200 }, () => (req: RecordedRequest) => scenario.reply(req)),
  );
  const holder: { rig?: Rig; turnId?: string } = {};
  const acked = { steers: [] as string[] };
  let threadId = '';
  const io: ScenarioIO = {
    client: () => holder.rig!.client,
    get threadId() {
      return threadId;
    },
    turnId: () => holder.turnId,
    acked,
    sendSteer(text) {
      const turnId = holder.turnId;
      if (!turnId) return Promise.resolve();
      return holder
        .rig!.client.send({ type: 'turn.steer', threadId, expectedTurnId: turnId, input: { text } })
        .then(
          (r) => void (r.type === 'command.ack' && acked.steers.push(text)),
          () => undefined,
        );
      // (A steer whose ack never comes — the engine died — may be lost: only acked ones count.)
    },
    sendInterrupt() {
      void sendBounded(holder.rig!.client, { type: 'turn.interrupt', threadId });
    },
  };
  const tools = scenario.tools(io);
  const rigA = await makeRig({ provider, tools, faults: kill });
  kill.onKill = () => rigA.engine.kill();
  holder.rig = rigA;
  for (const origin of scenario.allow ?? [])
    await rigA.client.ack({ type: 'siteRules.set', origin, rule: 'allow' });
  threadId = (await rigA.client.ack<{ threadId: string }>({ type: 'thread.create' })).threadId;
  kill.armed = true;
  const submitted = rigA.client.send({
    type: 'turn.submit',
    threadId,
    input: { text: 'start the task' },
  });
  // Bounded waits, cut short by the kill: a killed engine never sends what they wait for.
  const started = rigA.client.waitFor((e) => e.type === 'turn.start', 3_000).catch(() => null);
  const s = (await Promise.race([started, kill.dead.then(() => null)])) as Extract<
    AgentEvent,
    { type: 'turn.start' }
  > | null;
  const start = s ?? rigA.client.events.find((e) => e.type === 'turn.start');
  if (start?.type === 'turn.start') holder.turnId = start.turnId;
  await Promise.race([submitted.catch(() => null), kill.dead, sleep(1_000)]);
  if (scenario.afterSubmit && !kill.killed) await scenario.afterSubmit(io);

  // Let engine A work until it finishes or dies.
  await autopilot(rigA, threadId, scenario, () => kill.killed !== null);
  let rig = rigA;
  if (kill.killed) {
    // A transaction already under way when the worker died settles before a new worker can open
    // the database (Chrome does not start the new worker while the old one holds it).
    await sleep(15);
    rigA.store.close();
    rig = await rigA.reopen({ faults: undefined });
    holder.rig = rig;
    const cur = await rig.store.runs.current(threadId);
    if (cur) holder.turnId = cur.turnId;
    await autopilot(rig, threadId, scenario, () => false);
  }
  await checkInvariants(rig, threadId, scenario, acked.steers, tools);
  return { killedAt: kill.killed, hits: kill.hits };
}

/** Answer whatever the thread waits for, until it is idle (or `stop()` says the engine died). */
async function autopilot(
  rig: Rig,
  threadId: string,
  scenario: Scenario,
  stop: () => boolean,
): Promise<void> {
  const deadline = Date.now() + 8_000;
  let resumed = 0;
  while (Date.now() < deadline) {
    if (stop()) return;
    const run = await rig.store.runs.current(threadId);
    const queued = await rig.store.runs.queued(threadId);
    if (!run && !queued.length) {
      await sleep(8);
      if (
        !(await rig.store.runs.current(threadId)) &&
        !(await rig.store.runs.queued(threadId)).length
      )
        return;
      continue;
    }
    if (run?.state === 'waiting_approval') {
      for (const a of await rig.store.approvals.pendingForRun(run.runId)) {
        await sendBounded(rig.client, {
          type: 'approval.response',
          approvalId: a.approvalId,
          decision: 'allow_once',
        });
      }
    } else if (run?.state === 'paused_uncertain') {
      await sendBounded(rig.client, {
        type: 'run.resolveUncertain',
        runId: run.runId,
        resolution: 'mark_done',
      });
    } else if (run && (run.state === 'interrupted' || run.state === 'budget_paused')) {
      if (scenario.onInterrupted === 'resume' && resumed < 3) {
        resumed += 1;
        await sendBounded(rig.client, { type: 'run.resume', runId: run.runId });
      } else return;
    }
    await sleep(5);
  }
  throw new Error(
    `autopilot timed out; run state ${(await rig.store.runs.current(threadId))?.state}`,
  );
}

async function checkInvariants(
  rig: Rig,
  threadId: string,
  scenario: Scenario,
  ackedSteers: string[],
  tools: AgentTool[],
): Promise<void> {
  const thread = (await rig.store.threads.get(threadId))!;
  const path = await rig.store.threads.path(threadId, thread.leafId);
  const all = await rig.store.threads.allNodes(threadId);
  const fail = (msg: string) => {
    const describe = (n: (typeof path)[number]) =>
      n.item.kind +
      (n.item.kind === 'user_message'
        ? `(${n.item.text})`
        : n.item.kind === 'notice'
          ? `(${n.item.code}: ${n.item.text.slice(0, 80)})`
          : '');
    throw new Error(`${scenario.name}: ${msg}\npath: ${path.map(describe).join(' → ')}`);
  };
  // 1. No acknowledged steer lost or duplicated; user messages in admission order.
  const steered = path
    .filter((n) => n.item.kind === 'user_message' && n.item.steered)
    .map((n) => (n.item as { text: string }).text);
  for (const s of ackedSteers) {
    const count = steered.filter((x) => x === s).length;
    if (count !== 1) fail(`acked steer "${s}" appears ${count} times`);
  }
  if (new Set(steered).size !== steered.length) fail('a steer was materialized twice');
  const order = steered.map((s) => Number(s.replace(/\D/g, '')));
  if (order.some((v, i) => i > 0 && v < order[i - 1]))
    fail(`steers out of admission order: ${steered.join(', ')}`);
  // 2. Every tool call has exactly one result (or the run is paused_uncertain).
  const runs = await rig.store.runs.byThread(threadId);
  const uncertain = runs.some((r) => r.state === 'paused_uncertain');
  for (const n of path) {
    if (n.item.kind !== 'assistant_message') continue;
    for (const c of n.item.toolCalls ?? []) {
      const results = all.filter(
        (m) => m.item.kind === 'tool_result' && m.item.toolCallId === c.id,
      );
      const onPath = path.filter(
        (m) => m.item.kind === 'tool_result' && m.item.toolCallId === c.id,
      );
      if (onPath.length !== 1 && !uncertain)
        fail(
          `tool call ${c.id} has ${onPath.length} results on the path (${results.length} in the tree)`,
        );
    }
  }
  // 3. The rebuilt provider context is valid: each tool result follows its call, in order.
  const msgs = buildContext(path, { vision: false, providerKind: 'scripted' });
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role !== 'assistant' || !m.toolCalls.length) continue;
    const next = msgs.slice(i + 1, i + 1 + m.toolCalls.length);
    const ids = next.map((x) => (x.role === 'tool' ? x.toolCallId : '?'));
    if (ids.join() !== m.toolCalls.map((c) => c.id).join())
      fail(
        `tool results do not follow their calls: ${ids.join()} vs ${m.toolCalls.map((c) => c.id).join()}`,
      );
  }
  // 4. Never-retry writes ran at most once.
  for (const [name, max] of Object.entries(scenario.maxRuns ?? {})) {
    const t = tools.find((x) => x.name === name) as (AgentTool & { runs: number }) | undefined;
    if (t && t.runs > max) fail(`${name} ran ${t.runs} times (max ${max})`);
  }
  // 5. The thread is quiescent: no run left mid-step.
  for (const r of runs) {
    if (r.state === 'streaming_model' || r.state === 'executing_tool' || r.state === 'queued')
      fail(`run ${r.runId} left in ${r.state}`);
  }
}
