import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOOL_RETRY,
  isTransientToolError,
  retryDecision,
} from '../../../src/engine/call/tool-retry';
import { makeRig, testTool } from './harness';

const call = (name: string, args: unknown = {}) => ({ name, args });
const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isTransientToolError', () => {
  it.each([
    ['content script not injected (host code)', coded('no_receiver'), true],
    ['frame detached (host code)', coded('no_frame'), true],
    ['port closed mid-call', coded('port_closed'), true],
    ['explicit flag', Object.assign(new Error('busy'), { transient: true }), true],
    [
      'Chrome: receiving end',
      new Error('Could not establish connection. Receiving end does not exist.'),
      true,
    ],
    ['Chrome: frame removed', new Error('Frame with ID 3 was removed.'), true],
    ['tab still loading', new Error('The tab is still loading'), true],
    ['element not found', new Error('No element matches "#buy"'), false],
    ['restricted page', coded('restricted'), false],
    ['timeout', coded('timeout', 'The tool did not finish within 120 s'), false],
    ['not an error', 'no_receiver', false],
  ])('%s → %s', (_n, e, expected) => expect(isTransientToolError(e)).toBe(expected));
});

describe('retryDecision', () => {
  const transient = coded('no_receiver');
  it.each([
    [
      'retry-safe, 1st attempt',
      'retry-safe',
      1,
      transient,
      { kind: 'retry', delayMs: 300, nextAttempt: 2 },
    ],
    [
      'retry-safe, 2nd attempt: backoff doubles',
      'retry-safe',
      2,
      transient,
      { kind: 'retry', delayMs: 600, nextAttempt: 3 },
    ],
    ['retry-safe, last attempt', 'retry-safe', 3, transient, { kind: 'give_up' }],
    ['retry-safe, not transient', 'retry-safe', 1, new Error('nope'), { kind: 'give_up' }],
    ['never-retry is never repeated', 'never-retry', 1, transient, { kind: 'give_up' }],
    ['inspect-first is never repeated', 'inspect-first', 1, transient, { kind: 'give_up' }],
  ] as const)('%s', (_n, recovery, attempt, error, expected) => {
    expect(retryDecision({ recovery, attempt, error, policy: DEFAULT_TOOL_RETRY })).toEqual(
      expected,
    );
  });

  it('the backoff is bounded', () => {
    const policy = { maxAttempts: 10, baseDelayMs: 300, maxDelayMs: 2_000 };
    const delays = Array.from({ length: 9 }, (_, i) =>
      retryDecision({ recovery: 'retry-safe', attempt: i + 1, error: coded('no_frame'), policy }),
    ).map((d) => (d.kind === 'retry' ? d.delayMs : -1));
    expect(delays).toEqual([300, 600, 1200, 2000, 2000, 2000, 2000, 2000, 2000]);
  });
});

describe('retry-safe tools in a run (spec/004)', () => {
  function flakyTool(
    name: string,
    failures: number,
    opts: Parameters<typeof testTool>[1] = {},
    error: () => Error = () =>
      coded('no_receiver', 'Could not establish connection. Receiving end does not exist.'),
  ) {
    const t = testTool(name, opts);
    const orig = t.execute.bind(t);
    let calls = 0;
    t.execute = async (...a) => {
      calls += 1;
      if (calls <= failures) {
        t.runs += 1;
        throw error();
      }
      return orig(...a);
    };
    return t;
  }
  const sleeps: number[] = [];
  const options = { sleep: async (ms: number) => void sleeps.push(ms) };

  it('a transient failure is retried with backoff; the result records the attempts', async () => {
    sleeps.length = 0;
    const t = flakyTool('reader', 2);
    const rig = await makeRig({
      script: [{ toolCalls: [call('reader')] }, { text: 'done' }],
      tools: [t],
      options,
    });
    const { runId, threadId } = await rig.submit('read');
    await rig.client.turnComplete(runId);
    expect(t.runs).toBe(3);
    expect(sleeps).toEqual([300, 600]);
    const result = (await rig.store.threads.allNodes(threadId)).find(
      (n) => n.item.kind === 'tool_result',
    )!;
    expect(result.item).toMatchObject({ ok: true, attempts: 3 });
    // The card saw the retries as progress, and the result event carries the attempts.
    expect(
      rig.client
        .of('item.delta')
        .filter((e) => e.delta.toolProgress?.startsWith('Retrying'))
        .map((e) => e.delta.toolProgress!.slice(0, 26)),
    ).toEqual(['Retrying (attempt 2 of 3):', 'Retrying (attempt 3 of 3):']);
    expect(
      rig.client.of('item.complete').find((e) => e.item.kind === 'tool_result')!.item,
    ).toMatchObject({ attempts: 3 });
    // The model never saw the transient errors, and the breaker did not count them.
    expect(JSON.stringify(rig.provider.requests[1].messages)).not.toContain('Receiving end');
    expect((await rig.store.runs.get(runId))!.counters.consecutiveToolFailures).toBe(0);
  });

  it('a persistent transient failure reaches the model after the last attempt', async () => {
    sleeps.length = 0;
    const t = flakyTool('reader', 99);
    const rig = await makeRig({
      script: [{ toolCalls: [call('reader')] }, { text: 'done' }],
      tools: [t],
      options,
    });
    const { runId, threadId } = await rig.submit('read');
    await rig.client.turnComplete(runId);
    expect(t.runs).toBe(3);
    const result = (await rig.store.threads.allNodes(threadId)).find(
      (n) => n.item.kind === 'tool_result',
    )!;
    expect(result.item).toMatchObject({ ok: false, outcome: 'error', attempts: 3 });
    expect(JSON.stringify(result.item)).toContain('after 3 attempts');
  });

  it('a never-retry write and a non-transient failure run once', async () => {
    sleeps.length = 0;
    const w = flakyTool('writer', 1, { effects: 'write' });
    const r = flakyTool('reader', 1, {}, () => new Error('No element matches "#buy"'));
    const rig = await makeRig({
      script: [{ toolCalls: [call('writer'), call('reader')] }, { text: 'done' }],
      tools: [w, r],
      options,
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://shop.example', rule: 'allow' });
    const { runId, threadId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect([w.runs, r.runs, sleeps]).toEqual([1, 1, []]);
    const results = (await rig.store.threads.allNodes(threadId)).filter(
      (n) => n.item.kind === 'tool_result',
    );
    expect(results.map((n) => (n.item as { attempts?: number }).attempts)).toEqual([
      undefined,
      undefined,
    ]);
  });

  // Each retry is a new moment of effect (issue 25 §5): the rules as they are after the backoff.
  for (const [rule, expected] of [
    ['block', 'refused'],
    ['ask', 'asked'],
  ] as const) {
    it(`a site rule changed to ${rule} during the backoff: the retry is ${expected}, not run`, async () => {
      const origin = 'https://shop.example';
      const w = flakyTool('clicker', 1, { effects: 'write', recovery: 'retry-safe' });
      let rig!: Awaited<ReturnType<typeof makeRig>>;
      const sleep = async () => {
        await rig.client.ack({ type: 'siteRules.set', origin, rule });
      };
      rig = await makeRig({
        script: [{ toolCalls: [call('clicker')] }, { text: 'done' }],
        tools: [w],
        options: { sleep },
      });
      await rig.client.ack({ type: 'siteRules.set', origin, rule: 'allow' });
      const { runId, threadId } = await rig.submit('go');
      if (rule === 'ask') {
        const req = await rig.client.waitFor((e) => e.type === 'approval.request');
        // Asked about the retry on that site, with the first attempt's failure said; the tool has
        // not run again. Denied: it never runs again.
        expect(req).toMatchObject({ target: { origin } });
        expect(JSON.stringify(req)).toContain('retry');
        expect(w.runs).toBe(1);
        await rig.client.ack({
          type: 'approval.response',
          approvalId: (req as { approvalId: string }).approvalId,
          decision: 'deny',
        });
      }
      await rig.client.turnComplete(runId);
      expect(w.runs).toBe(1);
      const result = (await rig.store.threads.allNodes(threadId)).find(
        (n) => n.item.kind === 'tool_result',
      )!;
      expect(result.item).toMatchObject({ ok: false });
      if (rule === 'block') expect(JSON.stringify(result.item)).toContain('Not retried');
    });
  }

  it('an interrupt during the backoff stops the call', async () => {
    const t = flakyTool('reader', 99);
    let rig!: Awaited<ReturnType<typeof makeRig>>;
    let threadId = '';
    // The user interrupts while the engine waits to retry: the wait must end at once.
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        void rig.client.send({ type: 'turn.interrupt', threadId });
      });
    rig = await makeRig({
      script: [{ toolCalls: [call('reader')] }, { text: 'never' }],
      tools: [t],
      options: { sleep },
    });
    threadId = (await rig.client.ack<{ threadId: string }>({ type: 'thread.create' })).threadId;
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'read' },
    });
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('interrupted');
    expect(t.runs).toBe(1);
  });
});
