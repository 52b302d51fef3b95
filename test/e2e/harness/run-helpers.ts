import type { ThreadSnapshot } from '../../../src/protocol';
import type { EngineClient } from './engine-client';
import type { LaunchedExtension } from './launch-extension';
import type { RecordedRequest } from './model-script';

/** A title-generation request (sent on a thread's first turn): tests answer it apart from the script. */
export function isTitleRequest(r: RecordedRequest): boolean {
  return JSON.stringify(r.body).includes('You write titles');
}

/** Stop the worker, reconnect the panel's Port (which starts a new worker) and re-initialize. */
export async function restartWorker(ext: LaunchedExtension, client: EngineClient): Promise<void> {
  await ext.stopServiceWorker();
  await client.waitForDisconnect();
  await client.reconnect();
  await client.sendOk({ type: 'initialize', subscribe: ['*'] });
}

/** Poll a thread's snapshot until its run reaches one of `states` (events may predate the connection). */
export async function runSettles(
  client: EngineClient,
  threadId: string,
  states: string[],
  timeoutMs = 20_000,
): Promise<ThreadSnapshot> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const from = client.mark();
    await client.sendOk({ type: 'thread.subscribe', threadId });
    const ev = await client.waitForEvent(
      'thread.snapshot',
      (e) => e.snapshot.thread.threadId === threadId,
      5_000,
      from,
    );
    if (ev.snapshot.run && states.includes(ev.snapshot.run.state)) return ev.snapshot;
    if (Date.now() > end) throw new Error(`run still ${ev.snapshot.run?.state}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
