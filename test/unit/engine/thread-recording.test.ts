import { describe, expect, it } from 'vitest';
import type { FrameRecord } from '../../../src/store/frames-repo';
import { makeRig } from './harness';

const frame = (
  frameId: string,
  threadId: string,
  runId: string,
  at: number,
  summary: string,
): FrameRecord => ({
  v: 1,
  frameId,
  threadId,
  runId,
  toolCallId: `call_${frameId}`,
  tool: 'browser_type',
  at,
  summary,
  mimeType: 'image/jpeg',
  width: 2,
  height: 1,
  bytes: new Uint8Array([255, 216, 255]),
  size: 3 + summary.length,
});

describe('thread.recording: a thread’s task recording, over the protocol', () => {
  it('lists frames oldest first (one run on request), images as base64, summaries scanned', async () => {
    const rig = await makeRig({ frames: true, script: [{ text: 'ok' }] });
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'p1', kind: 'openai', apiKey: 'my-own-proxy-secret-123456' }] },
    });
    const { threadId, runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    await rig.store.frames.add(
      frame('b', threadId, runId, 2, 'Typed “my-own-proxy-secret-123456”'),
    );
    await rig.store.frames.add(frame('a', threadId, 'run_old', 1, 'Clicked “Go”'));
    const all = await rig.client.ack<{ frames: Record<string, unknown>[]; threadBytes: number }>({
      type: 'thread.recording',
      threadId,
    });
    expect(all.frames.map((f) => f.frameId)).toEqual(['a', 'b']);
    expect(all.frames[0]).toEqual({
      frameId: 'a',
      runId: 'run_old',
      toolCallId: 'call_a',
      tool: 'browser_type',
      at: 1,
      summary: 'Clicked “Go”',
      mimeType: 'image/jpeg',
      width: 2,
      height: 1,
      dataBase64: '/9j/',
    });
    expect(JSON.stringify(all)).not.toContain('my-own-proxy-secret-123456');
    expect(all.threadBytes).toBeGreaterThan(6);
    const one = await rig.client.ack<{ frames: { frameId: string }[] }>({
      type: 'thread.recording',
      threadId,
      runId,
    });
    expect(one.frames.map((f) => f.frameId)).toEqual(['b']);

    // Deleting the thread deletes its recording.
    await rig.client.ack({ type: 'thread.delete', threadId });
    await expect.poll(() => rig.store.frames.list(threadId)).toEqual([]);
  });

  it('an unknown thread is not_found; a host without recordings has none', async () => {
    const rig = await makeRig({ script: [{ text: 'ok' }] });
    const r = await rig.client.send({ type: 'thread.recording', threadId: 'thr_nope' });
    expect(r.type === 'command.reject' && r.code).toBe('not_found');
    const { threadId, runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(await rig.client.ack({ type: 'thread.recording', threadId })).toEqual({
      frames: [],
      threadBytes: 0,
    });
  });
});

describe('privateSites: the sites never recorded (settings.update)', () => {
  it('normalizes each site to its origin, lists them, clears with [], refuses a non-web one', async () => {
    const rig = await makeRig({ script: [] });
    const set = (privateSites: string[]) =>
      rig.client.send({ type: 'settings.update', patch: { privateSites } });
    const ok = await set(['bank.example/login', 'https://mail.example', 'https://mail.example/x']);
    expect(ok.type).toBe('command.ack');
    const settings = (ok as { result?: { settings?: { privateSites?: string[] } } }).result
      ?.settings;
    expect(settings?.privateSites).toEqual(['https://bank.example', 'https://mail.example']);
    expect((await rig.store.settings.get()).privateSites).toEqual([
      'https://bank.example',
      'https://mail.example',
    ]);
    const bad = await set(['chrome://settings']);
    expect(bad.type === 'command.reject' && bad.code).toBe('invalid_command');
    const cleared = await set([]);
    expect(
      (cleared as { result?: { settings?: Record<string, unknown> } }).result?.settings,
    ).not.toHaveProperty('privateSites');
  });
});
