import { placeholderOf } from '../../secrets/site-secrets';
import type { RecorderRefusal } from '../../workflows/recording/recorder';
import { publishWorkflows } from '../views/workflow-view';
import { done, type Handler, type HandlerMap } from './op-handler';
import { storeNewWorkflow } from './workflow-record';
import { ack, reject } from './receipts';

/**
 * workflow.recordStart / recordStop / recordSave / recordDiscard (docs/protocol.md §Workflows):
 * a workflow recorded by showing it. The recording itself lives in the browser side
 * (src/workflows/recording/recorder.ts); the engine only turns a reviewed recording into a
 * stored workflow, which then replays like any other.
 */

const NO_RECORDER = 'Recording needs the browser: it is not available here.';

const refused = (r: RecorderRefusal) => done(reject(r.code, r.message));

const start: Handler<'workflow.recordStart'> = async (engine, _client, op) => {
  const recorder = engine.ctx.browser?.recorder;
  if (!recorder) return done(reject('invalid_command', NO_RECORDER));
  const tabId = op.tabId ?? (await engine.ctx.browser?.activeTabId().catch(() => undefined));
  if (tabId === undefined) return done(reject('not_found', 'There is no tab to record in.'));
  const r = await recorder.start(tabId);
  if (r.kind === 'refused') return refused(r);
  return done(ack({ recordingId: r.status.recordingId, tabId }));
};

const stop: Handler<'workflow.recordStop'> = async (engine, _client, op) => {
  const recorder = engine.ctx.browser?.recorder;
  if (!recorder) return done(reject('invalid_command', NO_RECORDER));
  const r = await recorder.stop(op.recordingId);
  if (r.kind === 'refused') return refused(r);
  return done(ack({ recording: r.status }));
};

const save: Handler<'workflow.recordSave'> = async (engine, _client, op, ctx) => {
  const recorder = engine.ctx.browser?.recorder;
  if (!recorder) return done(reject('invalid_command', NO_RECORDER));
  // A password field on a site with a stored password secret types that secret (issue 28).
  const secrets = (await engine.ctx.store.settings.get()).siteSecrets ?? [];
  const storedSecret = (url: string): string | undefined => {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return undefined;
    }
    const mine = secrets.filter((s) => s.origin === origin && s.kind === 'password');
    const pick = mine.find((s) => s.name === 'password') ?? mine[0];
    return pick ? placeholderOf(pick) : undefined;
  };
  const derived = await recorder.derive(
    op.recordingId,
    {
      ...(op.drop ? { drop: op.drop } : {}),
      ...(op.renames ? { renames: op.renames } : {}),
    },
    storedSecret,
  );
  if (derived.kind === 'refused') return refused(derived);
  if (derived.kind === 'empty') return done(reject('not_replayable', derived.message));
  if (derived.kind === 'invalid') return done(reject('invalid_command', derived.message));
  const outcome = await storeNewWorkflow(engine, ctx, {
    name: op.name,
    source: { recordingId: op.recordingId },
    definition: derived.workflow,
  });
  return done(outcome, () => {
    // Saved: the recording is done with (a repeated save replays its receipt, not this).
    void recorder.discard(op.recordingId).catch((e) => engine.onBackgroundError(e));
    void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e));
  });
};

const discard: Handler<'workflow.recordDiscard'> = async (engine, _client, op) => {
  const recorder = engine.ctx.browser?.recorder;
  if (!recorder) return done(reject('invalid_command', NO_RECORDER));
  const r = await recorder.discard(op.recordingId);
  if (r.kind === 'refused') return refused(r);
  return done(ack());
};

export const recordingOps: Pick<
  HandlerMap,
  'workflow.recordStart' | 'workflow.recordStop' | 'workflow.recordSave' | 'workflow.recordDiscard'
> = {
  'workflow.recordStart': start,
  'workflow.recordStop': stop,
  'workflow.recordSave': save,
  'workflow.recordDiscard': discard,
};
