/**
 * Keel as an MCP server (docs/mcp-server.md, docs/protocol.md §MCP bridge): pairings, and an
 * outside agent's calls. A pairing is `pending` until the user answers in the panel; only an
 * `allowed` pairing's calls run. A call is a run of its own in the session's thread, stepped by
 * src/engine/workflow/external-step.ts through the ordinary tool step.
 */
import type { BridgePairing } from '../../protocol';
import type { SettingsRecord } from '../../store/records';
import { bridgeTools } from '../../tools/bridge-tools';
import { bridgeCredentialId, bridgeSettings } from '../env/settings-service';
import { Outbox, sendOutbox } from '../host/outbox';
import { isBusy } from '../run/run-machine';
import { startState } from '../run/run-edges';
import {
  announceTurnStart,
  commitTurnStart,
  newRun,
  supersedeCurrent,
} from '../turn/turn-lifecycle';
import { toolsOnlyStart } from '../turn/workflow-env';
import { done, type Handler, type HandlerMap } from './op-handler';
import { ack, reject } from './receipts';

function withPairings(
  s: SettingsRecord,
  edit: (pairings: BridgePairing[]) => BridgePairing[],
): SettingsRecord {
  const b = bridgeSettings(s);
  return { ...s, mcpBridge: { ...b, pairings: edit(b.pairings) } };
}

const pairingRequest: Handler<'bridge.pairingRequest'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const known = bridgeSettings(await store.settings.get()).pairings.find(
    (p) => p.pairingId === op.pairingId,
  );
  // A known pairing keeps its status: a denied or revoked client cannot ask again under it.
  if (known) return done(ack({ status: known.status }));
  const now = clock.now();
  // WebCrypto cannot run inside an IndexedDB transaction: the secret first (an unreferenced
  // credential is harmless; a pairing without its secret could never be proven).
  await store.credentials.setSecret(bridgeCredentialId(op.pairingId), op.secretHash, now);
  const outcome = ack({ status: 'pending' });
  await engine.ctx.commit('bridge_pairing', async () => {
    const current = await store.settings.get();
    await store.settings.put(
      withPairings(current, (ps) => [
        ...ps.filter((p) => p.pairingId !== op.pairingId),
        {
          pairingId: op.pairingId,
          clientName: op.clientName,
          status: 'pending',
          createdAt: now,
          updatedAt: now,
        },
      ]),
    );
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const pairingRespond: Handler<'bridge.pairingRespond'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const current = await store.settings.get();
  const p = bridgeSettings(current).pairings.find((x) => x.pairingId === op.pairingId);
  if (!p) return done(reject('not_found', `No pairing ${op.pairingId}.`));
  const status = op.decision === 'allow' ? 'allowed' : 'denied';
  if (p.status === status) return done(ack());
  if (p.status !== 'pending')
    return done(reject('already_resolved', `This pairing is already ${p.status}.`));
  const outcome = ack();
  await engine.ctx.commit('bridge_pairing', async () => {
    const now = clock.now();
    await store.settings.put(
      withPairings(current, (ps) =>
        ps.map((x) => (x.pairingId === op.pairingId ? { ...x, status, updatedAt: now } : x)),
      ),
    );
    if (status === 'denied') await store.credentials.delete(bridgeCredentialId(op.pairingId));
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const pairingRevoke: Handler<'bridge.pairingRevoke'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const current = await store.settings.get();
  const p = bridgeSettings(current).pairings.find((x) => x.pairingId === op.pairingId);
  if (!p) return done(reject('not_found', `No pairing ${op.pairingId}.`));
  const outcome = ack();
  await engine.ctx.commit('bridge_pairing', async () => {
    const now = clock.now();
    await store.settings.put(
      withPairings(current, (ps) =>
        ps.map((x) =>
          x.pairingId === op.pairingId ? { ...x, status: 'revoked' as const, updatedAt: now } : x,
        ),
      ),
    );
    await store.credentials.delete(bridgeCredentialId(op.pairingId));
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const BUSY = 'A task is running in this thread: wait for it, or interrupt it in the panel.';

const callExternal: Handler<'tool.callExternal'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  const pairing = bridgeSettings(await store.settings.get()).pairings.find(
    (p) => p.pairingId === op.pairingId,
  );
  if (pairing?.status !== 'allowed')
    return done(
      reject(
        'not_paired',
        pairing
          ? `This client's pairing is ${pairing.status}.`
          : 'This client is not paired with Keel.',
      ),
    );
  // The session's thread; a new one (named for the client) at the first call, or when the user
  // deleted it.
  const known = op.threadId ? await store.threads.get(op.threadId) : undefined;
  const thread =
    known ??
    store.threads.newThread({
      threadId: ids.next('thr'),
      title: pairing.clientName,
      now: clock.now(),
    });
  if (!known) thread.titleSource = 'user';
  const current0 = known ? await store.runs.current(thread.threadId) : undefined;
  if (current0 && isBusy(current0.state)) return done(reject('busy', BUSY));
  const prepared = await toolsOnlyStart(engine, bridgeTools(engine.ctx.registry));
  const threadId = thread.threadId;
  const runId = ids.next('run');
  const turnId = ids.next('turn');
  const call = { id: ids.next('ext'), nodeId: ids.next('n'), name: op.name, args: op.args };
  const outcome = ack({ threadId, turnId, runId, toolCallId: call.id });
  const afterAck = new Outbox();
  const res = await engine.ctx.commit('external_call_start', async () => {
    if (!known) await store.threads.put(thread);
    const current = await store.runs.current(threadId);
    if (current && isBusy(current.state)) return null;
    const now = clock.now();
    await supersedeCurrent(engine, current, afterAck);
    const t = (await store.threads.get(threadId))!;
    const r = newRun({
      runId,
      turnId,
      threadId,
      now,
      state: startState('callExternal', 'streaming_model'),
      env: prepared.env,
      ...(prepared.tabId !== undefined ? { tabId: prepared.tabId } : {}),
    });
    r.external = {
      pairingId: op.pairingId,
      clientName: pairing.clientName,
      call,
      phase: 'planned',
    };
    await store.runs.add(r);
    const started = await commitTurnStart(engine, {
      thread: t,
      run: r,
      input: { text: `${pairing.clientName} (MCP): ${op.name} ${JSON.stringify(op.args)}` },
      parentId: t.leafId,
      now,
    });
    await ctx.writeReceipt(outcome);
    return { ...started, run: r };
  });
  if (!res) return done(reject('busy', BUSY));
  return done(outcome, () => {
    sendOutbox(engine.ctx, afterAck);
    void announceTurnStart(engine, res, 'schedule');
  });
};

export const bridgeOps: Pick<
  HandlerMap,
  'bridge.pairingRequest' | 'bridge.pairingRespond' | 'bridge.pairingRevoke' | 'tool.callExternal'
> = {
  'bridge.pairingRequest': pairingRequest,
  'bridge.pairingRespond': pairingRespond,
  'bridge.pairingRevoke': pairingRevoke,
  'tool.callExternal': callExternal,
};
