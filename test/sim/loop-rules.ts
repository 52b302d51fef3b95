import type { RecordedRequest } from '../../src/providers/scripted';
import type { NodeRecord, RunEnvironmentSnapshot, RunRecord } from '../../src/store/records';
import type { MemoryData } from '../../src/store/memory/tables';
import type { Ledger } from './world';

/**
 * The loop's rules (spec/001 §1–2) as observed on the wire: what the scripted provider was sent,
 * what it replied, which ops the UI sent, and what was committed at the instant of each request.
 * - the token budget: no model call once the turn has used its budget (since its last resume);
 * - the failure breaker: after the fifth consecutive tool failure, every request forbids tools,
 *   and only one more reply is committed (more only for a steer or a resume in between);
 * - a non-retryable provider error is never retried: the run's next request needs a resume.
 * (One turn.complete per turn is checked with the other turn.complete rules, in invariants.ts.)
 *
 * The simulation counts tool failures on its own, conservatively: a result counts as a failure
 * only when the simulation knows the engine must count it (a tool the simulation made fail, or
 * arguments it made invalid that the engine refused); any other result but a denial resets the
 * count. So its count never exceeds the engine's, and a trip it sees is a trip the engine made.
 */

/** Consecutive tool failures that disable tools (spec/001 §1). */
export const BREAKER_AT = 5;

/** The world at the instant one model request was sent (recorded by world.ts). */
export interface RequestFacts {
  /** Index of the request (and of its scripted reply). */
  reply: number;
  session: number;
  /** `ledger.events.length` when it was sent (orders it among events and ops). */
  at: number;
  /** The run whose request it is: the thread's run in streaming_model, as committed. */
  runId: string | null;
  /** The run's token budget and the tokens it used since its last resume, as committed. */
  budget: number | null;
  used: number;
  /** The run's committed results already hold five consecutive failures. */
  tripped: boolean;
  /** The request lets the model call no tool (`toolChoice: 'none'`, or no tools offered). */
  toolsForbidden: boolean;
}

/** What the simulation generated for a call id it chose (world.ts `Session.scripted`). */
export interface GeneratedCall {
  args: 'ok' | 'malformed' | 'invalid';
  /** Reused by a later call with a duplicate id: the engine renames one, so which is unknown. */
  ambiguous: boolean;
}

export function requestFacts(f: {
  data: MemoryData;
  ledger: Ledger;
  request: RecordedRequest;
  reply: number;
  session: number;
}): RequestFacts {
  const runs = [...f.data.table('runs').values()] as unknown as RunRecord[];
  const live = runs.filter(
    (r) => r.state === 'streaming_model' && r.threadId === f.request.cacheKey,
  );
  const run = live.length === 1 ? live[0] : undefined;
  const toolsForbidden = f.request.toolChoice === 'none' || !f.request.tools?.length;
  const base = { reply: f.reply, session: f.session, at: f.ledger.events.length, toolsForbidden };
  if (!run) return { ...base, runId: null, budget: null, used: 0, tripped: false };
  return {
    ...base,
    runId: run.runId,
    budget: envOf(f.data, run)?.tokenBudget ?? null,
    used: run.usage.inputTokens + run.usage.outputTokens - run.counters.budgetBaseline,
    tripped: breakerTrip(runNodes(f.data, run), f.ledger) >= 0,
  };
}

/** A run's environment snapshot (stored apart from the run record, in `runEnvs`). */
function envOf(data: MemoryData, run: RunRecord): RunEnvironmentSnapshot | undefined {
  if (run.env) return run.env;
  return (data.table('runEnvs').get(run.runId) as { env?: RunEnvironmentSnapshot } | undefined)
    ?.env;
}

/** A run's nodes in its own thread, in order (a fork copies them into another thread). */
function runNodes(data: MemoryData, run: RunRecord): NodeRecord[] {
  const out = [...data.table('nodes').values()].filter(
    (n) => n.runId === run.runId && n.threadId === run.threadId,
  ) as unknown as NodeRecord[];
  return out.sort((a, b) => a.seq - b.seq);
}

function textOf(n: NodeRecord): string {
  if (n.item.kind !== 'tool_result') return '';
  return n.item.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** Errors the simulated tools throw (world.ts): a result quoting one is a tool failure. */
function simToolError(text: string, ledger: Ledger): boolean {
  return ledger.toolErrors.some((e) => text.startsWith(e));
}

/**
 * The index in `nodes` (one run's, in order) of the result that made the fifth consecutive
 * failure, or -1. Failures: a tool the simulation made fail (its error quoted in an `error`
 * result), or arguments it made invalid that the engine refused (`invalid`) in a message that
 * asked for tools (stop `tool_use`, no planning round). Denials are neutral; anything else resets.
 */
export function breakerTrip(nodes: NodeRecord[], ledger: Ledger): number {
  const asked = new Set<string>();
  for (const n of nodes)
    if (n.item.kind === 'assistant_message' && n.item.providerStopReason === 'tool_use')
      if (!n.item.round) for (const c of n.item.toolCalls ?? []) asked.add(c.id);
  let failures = 0;
  for (let i = 0; i < nodes.length; i++) {
    const it = nodes[i].item;
    if (it.kind !== 'tool_result' || it.outcome === 'denied') continue;
    const generated = ledger.calls.get(it.toolCallId);
    const failed =
      (it.outcome === 'error' && simToolError(textOf(nodes[i]), ledger)) ||
      (it.outcome === 'invalid' &&
        asked.has(it.toolCallId) &&
        generated !== undefined &&
        !generated.ambiguous &&
        generated.args !== 'ok' &&
        !textOf(nodes[i]).startsWith('Not executed'));
    failures = failed ? failures + 1 : 0;
    if (failures >= BREAKER_AT) return i;
  }
  return -1;
}

const NON_RETRYABLE = new Set([400, 401]);

/** Checks of the loop's rules on the requests since the last check and on the stored runs. */
export function loopRuleProblems(
  ledger: Ledger,
  data: MemoryData,
  from: { loopRequests: number },
  session: number,
): string[] {
  const out: string[] = [];
  const log = ledger.requestLog;
  for (let j = from.loopRequests; j < log.length; j++) {
    const f = log[j];
    if (!f.runId) continue;
    if (f.budget !== null && f.used >= f.budget)
      out.push(
        `model request ${j} for run ${f.runId} was sent after its token budget was spent (${f.used} of ${f.budget} tokens)`,
      );
    if (f.tripped && !f.toolsForbidden)
      out.push(
        `model request ${j} for run ${f.runId} offers tools after ${BREAKER_AT} consecutive tool failures`,
      );
    // The run's last request before this one, in this engine: did it end on a non-retryable error?
    const prev = log.slice(0, j).findLast((p) => p.runId === f.runId && p.session === f.session);
    const reply = prev ? ledger.history.replies[prev.reply] : undefined;
    if (prev && reply?.kind === 'error' && NON_RETRYABLE.has(reply.status)) {
      const resumed = ledger.ops.some(
        (o) =>
          o.op.type === 'run.resume' &&
          o.op.runId === f.runId &&
          o.at > prev.at &&
          o.at <= f.at &&
          o.answers[0]?.type !== 'command.reject',
      );
      if (!resumed)
        out.push(
          `model request ${j} for run ${f.runId} retries request ${prev.reply}, which failed with non-retryable HTTP ${reply.status}`,
        );
    }
  }
  from.loopRequests = log.length;
  out.push(...finalReplyProblems(ledger, data, session));
  return out;
}

/**
 * After the breaker trips, one final reply ends the turn: more committed replies need a steer
 * (materialized after the trip) or a resume of the run (acked, or lost to a kill) in between.
 */
function finalReplyProblems(ledger: Ledger, data: MemoryData, session: number): string[] {
  const out: string[] = [];
  // Each run's nodes in its own thread (a fork copies them into another), in order.
  const byRun = new Map<string, NodeRecord[]>();
  for (const row of data.table('nodes').values()) {
    const n = row as unknown as NodeRecord;
    if (!n.runId) continue;
    const key = `${n.threadId}\u0000${n.runId}`;
    const xs = byRun.get(key);
    if (xs) xs.push(n);
    else byRun.set(key, [n]);
  }
  for (const row of data.table('runs').values()) {
    const { runId, threadId } = row as unknown as RunRecord;
    const nodes = byRun.get(`${threadId}\u0000${runId}`);
    if (!nodes?.some((n) => n.item.kind === 'tool_result')) continue;
    nodes.sort((a, b) => a.seq - b.seq);
    const trip = breakerTrip(nodes, ledger);
    if (trip < 0) continue;
    const after = nodes.slice(trip + 1);
    const replies = after.filter((n) => n.item.kind === 'assistant_message').length;
    const steers = after.filter((n) => n.item.kind === 'user_message' && n.item.steered).length;
    const resumes = ledger.ops.filter(
      (o) =>
        o.op.type === 'run.resume' &&
        o.op.runId === runId &&
        (o.answers[0]?.type === 'command.ack' || (!o.answers.length && o.session < session)),
    ).length;
    if (replies > 1 + steers + resumes)
      out.push(
        `run ${runId}: ${replies} replies committed after the tool-failure breaker tripped (${steers} steers, ${resumes} resumes)`,
      );
  }
  return out;
}
