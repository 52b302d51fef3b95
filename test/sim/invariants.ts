import { buildContext } from '../../src/engine/context/context-builder';
import type { AgentEvent, RunState } from '../../src/protocol';
import type { NodeRecord, RunRecord, ThreadRecord } from '../../src/store/records';
import type { ProviderMessage } from '../../src/providers/types';
import { pathFrom } from '../../src/store/threads-repo';
import type { MemoryData } from '../../src/store/memory/tables';
import type { StoreTable } from '../../src/store/store-api';
import type { Ledger, SentOp } from './world';
import { loopRuleProblems } from './loop-rules';
import { wireProblems } from './wire-rules';

/**
 * The simulation's invariants (issue 12 §5), stated from the spec (spec/001 §2–§5, PROTOCOL.md)
 * and checked against what is stored and what the UI saw, never against engine internals.
 */

/** Runs still inside their turn: no turn.complete yet, steers may wait in `pendingSteers`. */
const LIVE: readonly RunState[] = [
  'streaming_model',
  'executing_tool',
  'waiting_approval',
  'waiting_interaction',
  // The user holds the page (issue 28): the turn goes on after the hand back.
  'user_control',
];
/**
 * Runs that may still hold acked steers: inside their turn, or paused in a way the user resumes
 * (budget, an uncertain call). spec/001 §3: a provider error, abort or interrupt ends the turn
 * only after its steers are materialized, so failed, interrupted and completed runs hold none.
 */
const HOLDS_STEERS: readonly RunState[] = [...LIVE, 'budget_paused', 'paused_uncertain'];
/** States a run rests in until the user acts (or for good). */
const STOPPED: readonly RunState[] = ['budget_paused', 'interrupted', 'failed', 'completed'];
/** States a turn rests in after its turn.complete. */
const RESTING: readonly RunState[] = [
  'completed',
  'failed',
  'interrupted',
  'budget_paused',
  'paused_uncertain',
];

export interface World {
  ledger: Ledger;
  /**
   * The stored data (sim-store.ts): in memory mode the live MemoryData itself, in dexie mode a
   * copy of every table read from IndexedDB after the step.
   */
  data: MemoryData;
  /** Every row of a table, as `StoreApi.rows` gives it. */
  rows(table: StoreTable): Promise<unknown[]>;
  threadId: string;
  /** Index of the engine session now alive. */
  session: number;
}

interface Snapshot {
  nodes: NodeRecord[];
  path: NodeRecord[];
  runs: RunRecord[];
}

/**
 * The stored thread, read synchronously from the stored data (consistent: no transaction can
 * interleave with a synchronous read) and without copies (the checks never mutate it).
 */
async function snapshot(w: World): Promise<Snapshot> {
  const data = w.data;
  const thread = data.table('threads').get(w.threadId) as ThreadRecord | undefined;
  const nodes = [...data.table('nodes').values()].filter(
    (n) => n.threadId === w.threadId,
  ) as unknown as NodeRecord[];
  nodes.sort((a, b) => a.seq - b.seq);
  const runs = [...data.table('runs').values()].filter(
    (r) => r.threadId === w.threadId,
  ) as unknown as RunRecord[];
  runs.sort((a, b) => (a.runId < b.runId ? -1 : 1));
  return { nodes, path: thread?.leafId ? pathFrom(nodes, thread.leafId) : [], runs };
}

const acked = (s: SentOp) => s.answers[0]?.type === 'command.ack';
const ackResult = <T>(s: SentOp) =>
  ((s.answers[0] as Extract<AgentEvent, { type: 'command.ack' }>).result ?? {}) as T;
const textOf = (op: SentOp) =>
  String(
    op.op.type === 'run.handBack'
      ? (op.op.note ?? '')
      : ((op.op.input as { text?: string } | undefined)?.text ?? ''),
  );

function userTexts(nodes: NodeRecord[], steered: boolean): { text: string; node: NodeRecord }[] {
  return nodes.flatMap((n) =>
    n.item.kind === 'user_message' && Boolean(n.item.steered) === steered
      ? [{ text: n.item.text, node: n }]
      : [],
  );
}

/** How a run ended, for telling known defects from new ones: its error, last notice, breaker. */
function endCause(r: RunRecord, nodes: NodeRecord[]): string {
  const last = nodes.filter((n) => n.runId === r.runId).at(-1)?.item;
  const parts = [`last=${last?.kind === 'notice' ? last.code : (last?.kind ?? 'none')}`];
  if (r.error) parts.push(`error=${r.error.code}`);
  if (r.counters.toolsDisabled) parts.push('toolsDisabled');
  if (r.stepCursor.round) parts.push(`round=${r.stepCursor.round}`);
  return parts.join(' ');
}

/** Checks that hold after every step. */
export async function checkStep(
  w: World,
  from: { requests: number; loopRequests: number },
): Promise<string[]> {
  const out: string[] = [];
  const s = await snapshot(w);
  const runsById = new Map(s.runs.map((r) => [r.runId, r]));
  // First submissions only: a repeat replays (checked below), it does not admit anything new.
  const ops = w.ledger.ops.filter((o) => !o.repeat);

  // 0. A stopped run never stops inside its batch: every open call got a result first, so
  // `run.resume` always goes on with the model (run-machine.ts `onResume`).
  for (const r of s.runs)
    if (STOPPED.includes(r.state) && r.stepCursor.nextToolIndex < r.stepCursor.toolCalls.length)
      out.push(
        `run ${r.runId} is ${r.state} with its cursor inside its batch (${r.stepCursor.nextToolIndex} of ${r.stepCursor.toolCalls.length} calls)`,
      );

  // 0b. A run the user holds has no call open: the pause waited for the running call's result
  // and closed the calls that had not started (take-over.ts), so nothing acts on the page.
  for (const r of s.runs)
    if (
      r.state === 'user_control' &&
      (r.pendingTool || r.stepCursor.nextToolIndex < r.stepCursor.toolCalls.length)
    )
      out.push(`run ${r.runId} is user_control with a call open in its batch`);

  // 1. Acked steers: exactly once as a steered user message, or still pending in a live run.
  const steered = userTexts(s.nodes, true);
  const pending = new Map<string, RunRecord>();
  for (const r of s.runs) for (const p of r.pendingSteers) pending.set(p.input.text, r);
  for (const text of new Set(steered.map((x) => x.text))) {
    const n = steered.filter((x) => x.text === text).length;
    if (n > 1) out.push(`steer "${text}" materialized ${n} times`);
  }
  for (const [text, r] of pending) {
    if (steered.some((x) => x.text === text))
      out.push(`steer "${text}" is both materialized and pending in ${r.runId}`);
    if (!HOLDS_STEERS.includes(r.state))
      out.push(
        `steer "${text}" still pending in run ${r.runId}, which is ${r.state} (its turn ended; ${endCause(r, s.nodes)})`,
      );
  }
  // A hand back's note is a steer too (issue 28): admitted after the steers acked before it.
  const steerOps = ops.filter(
    (o) => (o.op.type === 'turn.steer' || (o.op.type === 'run.handBack' && o.op.note)) && acked(o),
  );
  for (const o of steerOps) {
    const text = textOf(o);
    if (!steered.some((x) => x.text === text) && !pending.has(text))
      out.push(`acked steer "${text}" is lost (neither materialized nor pending)`);
  }
  // 2. Admission order: steers of one run materialize in the order they were acked.
  const ackOrder = new Map(steerOps.map((o, i) => [textOf(o), i]));
  const byRun = new Map<string, number[]>();
  for (const x of steered) {
    const i = ackOrder.get(x.text);
    if (i === undefined) continue;
    const key = x.node.runId ?? '';
    byRun.set(key, [...(byRun.get(key) ?? []), i]);
  }
  for (const [runId, order] of byRun) {
    if (order.some((v, i) => i > 0 && v < order[i - 1]))
      out.push(`steers of run ${runId} out of admission order`);
  }
  // Queue: acked, not removed items start at most once, in enqueue order.
  const enq = ops.filter((o) => o.op.type === 'turn.enqueue' && acked(o));
  const removed = new Set(
    ops
      .filter((o) => o.op.type === 'queue.remove' && acked(o))
      .map((o) => String(o.op.queueItemId)),
  );
  // A removal its engine died before answering may or may not have applied.
  const maybeRemoved = new Set(
    ops
      .filter((o) => o.op.type === 'queue.remove' && !o.answers.length && o.session < w.session)
      .map((o) => String(o.op.queueItemId)),
  );
  const plain = userTexts(s.nodes, false);
  const queueStarts: number[] = [];
  enq.forEach((o, i) => {
    const id = ackResult<{ queueItemId: string }>(o).queueItemId;
    const base = textOf(o);
    const hits = plain.filter((x) => x.text === base || x.text.startsWith(`${base}~`));
    if (hits.length > 1) out.push(`queued "${base}" started ${hits.length} times`);
    if (hits.length && removed.has(id))
      out.push(`queued "${base}" was removed (acked) but started`);
    if (hits.length) queueStarts.push(i);
    if (
      !hits.length &&
      !removed.has(id) &&
      !maybeRemoved.has(id) &&
      !runsById.has(id) &&
      !s.runs.some((r) => r.input?.text.startsWith(base))
    )
      out.push(`acked queue item "${base}" is lost`);
  });
  const starts = enq
    .map((o, i) => ({
      i,
      node: plain.find((x) => x.text === textOf(o) || x.text.startsWith(`${textOf(o)}~`))?.node,
    }))
    .filter((x) => x.node)
    .sort((a, b) => a.node!.seq - b.node!.seq)
    .map((x) => x.i);
  if (starts.some((v, i) => i > 0 && v < starts[i - 1]))
    out.push('queued items started out of enqueue order');
  // Submissions: an acked submit's message is stored exactly once.
  for (const o of ops.filter((x) => x.op.type === 'turn.submit')) {
    const n = plain.filter((x) => x.text === textOf(o)).length;
    if (n > 1) out.push(`submitted "${textOf(o)}" stored ${n} times`);
    if (acked(o) && n === 0) out.push(`acked submit "${textOf(o)}" has no user message`);
  }

  // 3. Tool calls: one result each on the path (tree-wide at most one), unless paused_uncertain.
  const results = new Map<string, number>();
  for (const n of s.nodes)
    if (n.item.kind === 'tool_result')
      results.set(n.item.toolCallId, (results.get(n.item.toolCallId) ?? 0) + 1);
  for (const [id, n] of results)
    if (n > 1) out.push(`tool call ${id} has ${n} results in the tree`);
  const callIds = new Set<string>();
  for (const n of s.path) {
    if (n.item.kind !== 'assistant_message') continue;
    const run = n.runId ? runsById.get(n.runId) : undefined;
    const inFlight =
      run &&
      (LIVE.includes(run.state) || run.state === 'paused_uncertain') &&
      run.stepCursor.assistantNodeId === n.id;
    for (const c of n.item.toolCalls ?? []) {
      if (!c.id) out.push(`tool call with an empty id stored in ${n.id}`);
      if (callIds.has(c.id)) out.push(`tool call id ${c.id} stored twice`);
      callIds.add(c.id);
      const onPath = s.path.filter(
        (m) => m.item.kind === 'tool_result' && m.item.toolCallId === c.id,
      ).length;
      if (onPath !== 1 && !inFlight)
        out.push(
          `tool call ${c.id} (${c.name}) has ${onPath} results on the path; run ${run?.runId} is ${run?.state}`,
        );
    }
  }
  // 4. A never-retry write runs at most once per call, beyond retries the user chose.
  const retries = new Map<string, number>();
  // A retry counts once acked, or when its answer was lost to a kill but its receipt committed
  // (the decision and the receipt share one transaction): running the write again is then what
  // the user chose.
  const receipts = (await w.rows('receipts')) as { key: string; outcome: { kind: string } }[];
  const committed = (o: SentOp) =>
    receipts.some((r) => r.key.endsWith(`\u0000${o.submissionId}`) && r.outcome.kind === 'ack');
  for (const o of w.ledger.ops)
    if (
      o.op.type === 'run.resolveUncertain' &&
      o.op.resolution === 'retry' &&
      (acked(o) || (o.answers.length === 0 && committed(o)))
    )
      retries.set(String(o.op.runId), (retries.get(String(o.op.runId)) ?? 0) + 1);
  const extra = new Map<string, number>();
  for (const e of w.ledger.executionLog) {
    if (e.tool !== 'fill_form') continue;
    if ((w.ledger.executions.get(`fill_form:${e.callId}`) ?? 0) > 1)
      extra.set(e.runId, (extra.get(e.runId) ?? 0) + 0);
  }
  for (const [key, n] of w.ledger.executions) {
    if (!key.startsWith('fill_form:') || n <= 1) continue;
    const runId = w.ledger.executionLog.find((e) => `${e.tool}:${e.callId}` === key)!.runId;
    extra.set(runId, (extra.get(runId) ?? 0) + n - 1);
  }
  for (const [runId, n] of extra)
    if (n > (retries.get(runId) ?? 0))
      out.push(
        `never-retry write ran ${n} extra time(s) in run ${runId} with ${retries.get(runId) ?? 0} retries chosen`,
      );

  // 5. Every request sent to the model satisfies both providers' rules.
  for (let i = from.requests; i < w.ledger.requests.length; i++) {
    for (const p of wireProblems(w.ledger.requests[i].messages, true))
      out.push(`model request ${i}: ${p}`);
    const p = onDemandProblem(w.ledger.requests[i]);
    if (p) out.push(`model request ${i}: ${p}`);
  }
  from.requests = w.ledger.requests.length;

  // 6. Ops: never more than one answer; a repeated submission replays its first outcome.
  for (const o of w.ledger.ops)
    if (o.answers.length > 1)
      out.push(`op ${o.op.type} (${o.submissionId}) answered ${o.answers.length} times`);
  out.push(...replayProblems(w.ledger.ops));
  out.push(...turnCompleteProblems(w, s.runs, false));
  out.push(...afterCompleteProblems(w, s.nodes));
  out.push(...w.ledger.permissionProblems);
  // 8. The loop's rules on the wire: budget, failure breaker, non-retryable errors.
  out.push(...loopRuleProblems(w.ledger, w.data, from, w.session));
  return out;
}

/**
 * "turn.complete only after every commit of the turn" (spec/001 §2): when it arrives the run is at
 * rest, and no node of the run is committed after it unless the user continued the run.
 */
function afterCompleteProblems(w: World, nodes: NodeRecord[]): string[] {
  const out: string[] = [];
  const last = new Map<string, (typeof w.ledger.completions)[number]>();
  for (const c of w.ledger.completions) {
    if (!RESTING.includes(c.state as RunState))
      out.push(`turn.complete for run ${c.runId} arrived while the run was ${c.state}`);
    last.set(c.runId, c);
  }
  for (const [runId, c] of last) {
    const continued = w.ledger.ops.some(
      (o) =>
        (o.op.type === 'run.resume' ||
          o.op.type === 'run.resolveUncertain' ||
          o.op.type === 'approval.response' ||
          o.op.type === 'interaction.response') &&
        o.at > c.event,
    );
    if (continued) continue;
    const now = nodes.filter((n) => n.runId === runId).length;
    if (now > c.nodes)
      out.push(`run ${runId}: ${now - c.nodes} node(s) committed after its turn.complete`);
  }
  return out;
}

function outcomeOf(o: SentOp): string {
  const a = o.answers[0];
  if (!a) return '';
  if (a.type === 'command.ack') return `ack ${JSON.stringify(a.result ?? null)}`;
  return `reject ${a.code}`;
}

function replayProblems(ops: SentOp[]): string[] {
  const out: string[] = [];
  const first = new Map<string, SentOp>();
  for (const o of ops) {
    if (o.op.type === 'initialize') continue;
    const prev = first.get(o.submissionId);
    if (!prev) {
      first.set(o.submissionId, o);
      continue;
    }
    // Only an acked first outcome is a durable decision to replay (a rejection may be re-judged).
    if (prev.answers[0]?.type !== 'command.ack' || !o.answers.length) continue;
    const drift = JSON.stringify(prev.op) !== JSON.stringify(o.op);
    const a = o.answers[0];
    if (drift && !(a?.type === 'command.reject' && a.code === 'invalid_command'))
      out.push(
        `repeated ${o.op.type} with a different payload got ${outcomeOf(o)}, not invalid_command`,
      );
    if (!drift && outcomeOf(prev) !== outcomeOf(o))
      out.push(
        `repeated ${o.op.type} got "${outcomeOf(o)}", first outcome was "${outcomeOf(prev)}"`,
      );
  }
  return out;
}

/**
 * 7. turn.complete: at most one per turn segment (a resume or an uncertain-call resolution starts
 * a new one), nothing of the turn after it, and — once the engine is quiet — one for every turn
 * that came to rest while this engine watched it.
 */
function turnCompleteProblems(w: World, runs: RunRecord[], quiescent: boolean): string[] {
  const out: string[] = [];
  const events = w.ledger.events;
  for (const run of runs) {
    const conts = w.ledger.ops.filter(
      (o) =>
        (o.op.type === 'run.resume' || o.op.type === 'run.resolveUncertain') &&
        o.op.runId === run.runId,
    );
    // A continuation counts when acked, or when its engine died before answering (it may have applied).
    const continuations = conts.filter(
      (o) => acked(o) || (!o.answers.length && o.session < w.session),
    ).length;
    let completes = 0;
    let lastComplete = -1;
    let activeSince: number | null = null; // first event of the segment still open
    events.forEach((x, i) => {
      const ev = x.ev;
      if (ev.type === 'turn.complete' && ev.runId === run.runId) {
        completes += 1;
        lastComplete = i;
        activeSince = null;
        return;
      }
      const ofTurn =
        (ev.type === 'turn.start' && ev.runId === run.runId) ||
        (ev.type === 'item.start' && ev.turnId === run.turnId) ||
        (ev.type === 'run.updated' && ev.runId === run.runId && LIVE.includes(ev.state));
      if (!ofTurn) return;
      if (lastComplete >= 0 && events[lastComplete].session === x.session && activeSince === null) {
        const resumed = conts.some(
          (o) => o.session === x.session && o.at > lastComplete && o.at <= i,
        );
        if (!resumed)
          out.push(`run ${run.runId}: ${ev.type} after its turn.complete (no resume in between)`);
      }
      if (activeSince === null || events[activeSince].session !== x.session) activeSince = i;
    });
    if (completes > 1 + continuations)
      out.push(`run ${run.runId} got ${completes} turn.complete with ${continuations} resumes`);
    if (
      quiescent &&
      RESTING.includes(run.state) &&
      activeSince !== null &&
      events[activeSince].session === w.session
    ) {
      out.push(`run ${run.runId} came to rest (${run.state}) without a turn.complete`);
    }
  }
  return [...new Set(out)];
}

/** Checks once nothing moves any more. */
export async function checkQuiescent(w: World): Promise<string[]> {
  const out: string[] = [];
  const s = await snapshot(w);
  for (const r of s.runs) {
    if (r.state === 'streaming_model' || r.state === 'executing_tool')
      out.push(`run ${r.runId} left in ${r.state} at quiescence`);
  }
  // The context the next request would be built from is valid for both providers.
  for (const kind of ['anthropic', 'openai']) {
    for (const p of wireProblems(
      buildContext(s.path, { vision: false, providerKind: kind }),
      false,
    ))
      out.push(`rebuilt context (${kind}): ${p}`);
  }
  // Every op the living engine received is answered.
  for (const o of w.ledger.ops)
    if (o.session === w.session && o.answers.length === 0)
      out.push(`op ${o.op.type} (${o.submissionId}) never answered`);
  out.push(...turnCompleteProblems(w, s.runs, true));
  return out;
}

/** A readable dump of the thread and the ops, for a failure report. */
export async function describe(w: World): Promise<string> {
  const s = await snapshot(w);
  const item = (n: NodeRecord) => {
    const it = n.item;
    if (it.kind === 'user_message') return `user${it.steered ? '(steered)' : ''} "${it.text}"`;
    if (it.kind === 'assistant_message')
      return `assistant "${it.text.slice(0, 20)}" calls=[${(it.toolCalls ?? []).map((c) => `${c.name}:${c.id}`).join(',')}] stop=${it.providerStopReason}`;
    if (it.kind === 'tool_result') return `result ${it.toolCallId} ok=${it.ok}`;
    if (it.kind === 'tool_call') return `tool_call ${it.toolCallId} ${it.state}`;
    if (it.kind === 'notice') return `notice ${it.code}`;
    return (it as { kind: string }).kind;
  };
  const onPath = new Set(s.path.map((n) => n.id));
  const lines = s.nodes.map(
    (n) =>
      `  ${onPath.has(n.id) ? '*' : ' '} #${n.seq} ${n.id} ←${n.parentId ?? '-'} [${n.runId ?? ''}] ${item(n)}`,
  );
  const runs = s.runs.map(
    (r) =>
      `  ${r.runId} ${r.turnId} ${r.state} pending=[${r.pendingSteers.map((p) => `${p.seq}:${p.input.text}`).join(',')}]`,
  );
  const ops = w.ledger.ops.map(
    (o) =>
      `  [${o.session}@${o.at}] ${o.submissionId} ${JSON.stringify(o.op).slice(0, 140)} → ${o.answers.map((a) => (a.type === 'command.ack' ? `ack ${JSON.stringify(a.result ?? '')}` : `reject ${a.code}`)).join(' | ') || '(none)'}`,
  );
  const evs = w.ledger.events
    .map((x, i) => ({ x, i }))
    .filter(({ x }) => ['turn.start', 'turn.complete', 'run.updated'].includes(x.ev.type))
    .map(({ x, i }) => `  ${i} [${x.session}] ${JSON.stringify(x.ev).slice(0, 160)}`);
  return [
    'nodes (* = on the path):',
    ...lines,
    'runs:',
    ...runs,
    'ops:',
    ...ops,
    'events:',
    ...evs,
  ].join('\n');
}

/**
 * Tools on demand (offered-tools.ts): a request that offers tools offers the on-demand
 * `reload_tab` exactly when its own context called it or loaded it — after kills, resumes,
 * retries, forks and edits alike — so a history's calls always have their definitions, and an
 * unused definition is never sent.
 */
function onDemandProblem(req: {
  messages: readonly ProviderMessage[];
  tools: readonly { name: string }[];
}): string | null {
  if (!req.tools.length) return null;
  const wanted = req.messages.some(
    (m) =>
      m.role === 'assistant' &&
      m.toolCalls.some(
        (c) =>
          c.name === 'reload_tab' ||
          (c.name === 'load_tools' &&
            ((c.args as { names?: unknown })?.names as unknown[] | undefined)?.includes(
              'reload_tab',
            )),
      ),
  );
  const offered = req.tools.some((t) => t.name === 'reload_tab');
  if (wanted && !offered) return 'reload_tab is in its context but not offered';
  if (!wanted && offered) return 'reload_tab is offered though its context never wanted it';
  return null;
}
