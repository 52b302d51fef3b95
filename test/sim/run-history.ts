import { installDeterministicDigest } from './deterministic-env';
import { checkQuiescent, checkStep, describe, type World } from './invariants';
import type { Action, History, KillTarget } from './plan';
import { openSimStore, type SimStore, type SimStoreMode } from './sim-store';
import { Ledger, ORIGIN, Session, type SimStats } from './world';

/**
 * Play one history against the engine: each action is one op (or a release, a kill, or time
 * passing), then the engine runs until nothing moves, then every invariant is checked. A kill
 * is followed by recovery on a new engine over the same data. At the end an "autopilot" user
 * answers whatever the thread waits for, and the quiescent invariants are checked.
 */

export interface Violation {
  step: number;
  action: Action | 'quiescence';
  message: string;
}

export interface HistoryResult {
  violations: Violation[];
  kills: number;
  /** Boundaries crossed and model requests made: a fingerprint of what happened. */
  trace: string;
  /** What the history met (world.ts `SimStats`). */
  stats: SimStats;
  /** With `verbose`, when there is a violation: the thread, runs, ops and turn events. */
  dump?: string;
}

export interface RunOptions {
  /** With a violation, add a dump of the thread, runs, ops and turn events. */
  verbose?: boolean;
  /** The store the engine runs on (default memory). */
  store?: SimStoreMode;
}

/**
 * Run the engine until nothing changes: every effect settles in microtasks or fake-indexeddb's
 * setImmediate tasks (no timers); unfinished IndexedDB work is not quiet.
 */
async function settleWith(ledger: Ledger, sim: SimStore): Promise<void> {
  let last = -1;
  let quiet = 0;
  for (let i = 0; i < 500 && quiet < 2; i++) {
    await new Promise<void>((r) => setImmediate(r));
    if (ledger.activity === last && !sim.busy) quiet += 1;
    else quiet = 0;
    last = ledger.activity;
  }
}

export async function runHistory(
  history: History,
  options: RunOptions = {},
): Promise<HistoryResult> {
  installDeterministicDigest();
  const ledger = new Ledger(history);
  const sim = openSimStore(options.store ?? 'memory', () => {
    ledger.activity += 1;
  });
  try {
    return await play(history, ledger, sim, options.verbose ?? false);
  } finally {
    await sim.dispose();
  }
}

async function play(
  history: History,
  ledger: Ledger,
  sim: SimStore,
  verbose: boolean,
): Promise<HistoryResult> {
  const settle = (l: Ledger) => settleWith(l, sim);
  await Session.seed(sim);
  let session = new Session(0, ledger, sim);
  session.start();
  await settle(ledger);
  const violations: Violation[] = [];
  let kills = 0;
  let threadId = '';
  const create = session.send({ type: 'thread.create' });
  await settle(ledger);
  const created = create.answers[0];
  if (created?.type !== 'command.ack') throw new Error('sim: thread.create failed');
  threadId = (created.result as { threadId: string }).threadId;
  /** What the invariants see; in dexie mode, a harness whose mirror drifted is a violation too. */
  const world = async (): Promise<World & { drift: string }> => {
    const view = await sim.view(session.store);
    return { ledger, ...view, threadId, session: session.index };
  };
  const check = async (quiescent: boolean): Promise<string[]> => {
    const w = await world();
    return [
      ...(w.drift ? [w.drift] : []),
      ...(await checkStep(w, from)),
      ...(quiescent ? await checkQuiescent(w) : []),
    ];
  };
  const from = { requests: 0, loopRequests: 0 };
  let counter = 0;

  /** After a kill, open a new engine over the same data; it may be armed to die in recovery. */
  let again: number | undefined;
  /** Where the kill of a recovering engine lands: anywhere, inside transactions too, if targeted. */
  let againTarget: KillTarget | undefined;
  const recoverIfDead = async () => {
    while (session.dead) {
      kills += 1;
      session.dispose();
      session = new Session(session.index + 1, ledger, sim);
      if (again !== undefined) {
        session.killCountdown = again;
        session.killTarget = againTarget;
      }
      again = undefined;
      session.start();
      await settle(ledger);
    }
  };

  const steps = [...history.actions];
  for (let step = 0; step < steps.length; step++) {
    const a = steps[step];
    await act(a);
    await settle(ledger);
    await recoverIfDead();
    for (const message of await check(false)) violations.push({ step, action: a, message });
    if (violations.length) break;
  }

  if (!violations.length) {
    // Quiescence: release everything and answer whatever waits. No more kills, except one armed
    // for a write tool: the approvals answered here are when most writes run.
    const t = session.killTarget;
    if (t !== 'write_before' && t !== 'write_after') session.killCountdown = null;
    again = undefined;
    for (let round = 0; round < 40; round++) {
      while (Session.release(ledger, 0)) {
        await settle(ledger);
        await recoverIfDead();
      }
      await recoverIfDead();
      const run = await session.store.runs.current(threadId);
      if (run?.state === 'waiting_approval') {
        for (const p of await session.store.approvals.pendingForRun(run.runId))
          session.send({
            type: 'approval.response',
            approvalId: p.approvalId,
            decision: 'allow_once',
          });
      } else if (run?.state === 'waiting_interaction') {
        for (const p of await session.store.interactions.pendingForRun(run.runId))
          session.send({
            type: 'interaction.response',
            interactionId: p.interactionId,
            response: { answer: 'M' },
          });
      } else if (run?.state === 'paused_uncertain') {
        session.send({ type: 'run.resolveUncertain', runId: run.runId, resolution: 'mark_done' });
      } else if (run?.state === 'user_control') {
        session.send({ type: 'run.handBack', threadId });
      } else if (!ledger.gates.length) break;
      await settle(ledger);
      await recoverIfDead();
    }
    for (const message of await check(true))
      violations.push({ step: steps.length, action: 'quiescence', message });
  }
  const dump = verbose && violations.length ? await describe(await world()) : undefined;
  session.dispose();
  const completes = ledger.events.flatMap((x) => (x.ev.type === 'turn.complete' ? [x.ev] : []));
  ledger.stats.uncertainPauses = completes.filter(
    (e) => e.stopReason === 'paused_uncertain',
  ).length;
  ledger.stats.budgetPauses = completes.filter((e) => e.stopReason === 'budget_pause').length;
  const takeovers = new Set(
    ledger.events.flatMap((x) =>
      x.ev.type === 'interaction.request' && x.ev.kind === 'takeover' ? [x.ev.interactionId] : [],
    ),
  );
  ledger.stats.takeovers = takeovers.size;
  ledger.stats.handedBack = new Set(
    ledger.events.flatMap((x) =>
      x.ev.type === 'interaction.resolved' && takeovers.has(x.ev.interactionId)
        ? [x.ev.interactionId]
        : [],
    ),
  ).size;
  ledger.stats.userTakeOvers = ledger.events.filter(
    (x) => x.ev.type === 'run.updated' && x.ev.state === 'user_control',
  ).length;
  ledger.stats.userHandBacks = ledger.ops.filter(
    (o) => o.op.type === 'run.handBack' && !o.repeat && o.answers[0]?.type === 'command.ack',
  ).length;
  ledger.stats.breakerTrips = new Set(
    ledger.requestLog.flatMap((f) => (f.tripped && f.runId ? [f.runId] : [])),
  ).size;
  return {
    violations,
    kills,
    stats: ledger.stats,
    trace: `${ledger.boundaries}b/${ledger.requests.length}r/${ledger.events.length}e`,
    ...(dump ? { dump } : {}),
  };

  async function act(a: Action): Promise<void> {
    const store = session.store;
    const current = await store.runs.current(threadId);
    const runs = (await store.runs.byThread(threadId)).sort((x, y) => x.createdAt - y.createdAt);
    const send = (op: Record<string, unknown>) => session.send(op);
    switch (a.kind) {
      case 'submit':
        send({ type: 'turn.submit', threadId, input: { text: `task-${++counter}` } });
        return;
      case 'steer': {
        const stale = runs.filter((r) => r.runId !== current?.runId && r.state !== 'queued').at(-1);
        const turnId =
          a.turn === 'current'
            ? (current?.turnId ?? stale?.turnId ?? 'turn_none')
            : a.turn === 'stale'
              ? (stale?.turnId ?? 'turn_none')
              : 'turn_bogus';
        send({
          type: 'turn.steer',
          threadId,
          expectedTurnId: turnId,
          input: { text: `steer-${++counter}` },
        });
        return;
      }
      case 'enqueue':
        send({ type: 'turn.enqueue', threadId, input: { text: `queued-${++counter}` } });
        return;
      case 'queue_update':
      case 'queue_remove': {
        const queued = await store.runs.queued(threadId);
        const q = queued.length ? queued[a.pick % queued.length] : undefined;
        const id = q?.runId ?? 'q_bogus';
        if (a.kind === 'queue_remove') send({ type: 'queue.remove', threadId, queueItemId: id });
        else
          send({
            type: 'queue.update',
            threadId,
            queueItemId: id,
            input: { text: `${q?.input?.text.split('~')[0] ?? 'queued-x'}~${++counter}` },
          });
        return;
      }
      case 'interrupt':
        send({ type: 'turn.interrupt', threadId });
        return;
      case 'approve': {
        const pending = current ? await store.approvals.pendingForRun(current.runId) : [];
        const answered = ledger.events.flatMap((x) =>
          x.ev.type === 'approval.resolved' ? [x.ev.approvalId] : [],
        );
        const id =
          a.which === 'pending'
            ? (pending[0]?.approvalId ?? answered.at(-1))
            : a.which === 'resolved'
              ? (answered.at(-1) ?? pending[0]?.approvalId)
              : undefined;
        send({ type: 'approval.response', approvalId: id ?? 'apr_bogus', decision: a.decision });
        return;
      }
      case 'answer': {
        const pending = current ? await store.interactions.pendingForRun(current.runId) : [];
        const answered = ledger.events.flatMap((x) =>
          x.ev.type === 'interaction.resolved' ? [x.ev.interactionId] : [],
        );
        const id =
          a.which === 'pending'
            ? (pending[0]?.interactionId ?? answered.at(-1))
            : (answered.at(-1) ?? pending[0]?.interactionId);
        // A hand-over is answered Done (with a note) or Cancel; a question with its answer.
        const takeover = pending[0]?.kind === 'takeover' && a.which === 'pending';
        const response =
          a.response === 'answer'
            ? takeover
              ? { done: true, note: 'M' }
              : { answer: 'M' }
            : a.response === 'cancel'
              ? { cancelled: true }
              : { bogus: 1 };
        send({ type: 'interaction.response', interactionId: id ?? 'int_bogus', response });
        return;
      }
      case 'resume':
        send({
          type: 'run.resume',
          runId:
            a.which === 'latest'
              ? (current?.runId ?? runs.at(-1)?.runId ?? 'run_bogus')
              : 'run_bogus',
        });
        return;
      case 'resolve_uncertain':
        send({
          type: 'run.resolveUncertain',
          runId: current?.runId ?? runs.at(-1)?.runId ?? 'run_bogus',
          resolution: a.resolution,
        });
        return;
      case 'fork':
      case 'select_branch': {
        const thread = await store.threads.get(threadId);
        const nodes =
          a.kind === 'fork'
            ? await store.threads.path(threadId, thread?.leafId ?? null)
            : (await store.threads.allNodes(threadId)).sort((x, y) => x.seq - y.seq);
        const node = nodes.length ? nodes[a.pick % nodes.length].id : 'n_bogus';
        send(
          a.kind === 'fork'
            ? { type: 'thread.fork', threadId, nodeId: node }
            : { type: 'thread.selectBranch', threadId, leafId: node },
        );
        return;
      }
      case 'budget':
        send({ type: 'settings.update', patch: { tokenBudget: a.tokens } });
        return;
      case 'approval_mode':
        send({ type: 'settings.update', patch: { approvalMode: a.mode } });
        return;
      case 'site_rule':
        send({ type: 'siteRules.set', origin: a.rule === 'block' ? ORIGIN : ORIGIN, rule: a.rule });
        return;
      case 'repeat': {
        // A drifted repeat changes a field the op is judged on (its input, or its decision).
        const earlier = ledger.ops.filter(
          (o) =>
            o.op.type !== 'initialize' &&
            o.op.type !== 'thread.create' &&
            (!a.drift || o.op.input || o.op.decision),
        );
        if (!earlier.length) return;
        const o = earlier[a.pick % earlier.length];
        const drifted = o.op.input
          ? { input: { text: 'drifted' } }
          : { decision: o.op.decision === 'deny' ? 'allow_once' : 'deny' };
        const op = a.drift ? { ...o.op, ...drifted } : o.op;
        session.send(op, o.submissionId);
        return;
      }
      case 'take_over':
        send({ type: 'run.takeOver', threadId });
        return;
      case 'hand_back':
        // The user acted on the page meanwhile: the tab the host reports has moved on.
        ledger.pageVersion += 1;
        send({ type: 'run.handBack', threadId, ...(a.note ? { note: `note-${++counter}` } : {}) });
        return;
      case 'mcp_drop':
      case 'mcp_restore':
        session.setMcp(a.kind === 'mcp_restore');
        return;
      case 'release':
        Session.release(ledger, a.pick);
        return;
      case 'kill':
        session.killCountdown = a.atBoundary;
        session.killTarget = a.target;
        again = a.again;
        againTarget = a.target && 'any';
        return;
      case 'settle':
        return;
    }
  }
}
