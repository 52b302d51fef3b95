import { describe, expect, it } from 'vitest';
import { RunState, type Decision } from '../../../src/protocol';
import type { NormalizedStopReason } from '../../../src/providers/types';
import { recoveryAction } from '../../../src/engine/turn/recovery';
import { RUN_TRANSITIONS } from '../../../src/engine/run/run-transitions';
import { edgeRow } from '../../../src/engine/run/run-edges';
import {
  afterAssistant,
  afterDecision,
  afterToolResult,
  afterUncertainResolution,
  cutoffDecision,
  driveAction,
  isBusy,
  isCurrent,
  isResumable,
  isSteerable,
  isSupersedable,
  isTerminal,
  isWaiting,
  onInterrupt,
  onProviderFailure,
  onResume,
  type AfterAssistant,
  type AssistantFacts,
} from '../../../src/engine/run/run-machine';

const STATES = RunState.options;
const STOPS: NormalizedStopReason[] = [
  'end',
  'tool_use',
  'max_tokens',
  'content_filter',
  'refusal',
  'error',
];

describe('run machine: state predicates (spec/001 §5)', () => {
  it.each([
    // state, busy, steerable, waiting, supersedable, current, terminal, driven action
    ['queued', false, false, false, false, false, false, 'ended'],
    ['streaming_model', true, true, false, false, true, false, 'model'],
    ['executing_tool', true, true, false, false, true, false, 'tool'],
    ['waiting_approval', true, true, true, false, true, false, 'parked'],
    ['waiting_interaction', true, true, true, false, true, false, 'parked'],
    ['paused_uncertain', true, false, true, false, true, false, 'parked'],
    ['budget_paused', false, false, true, true, true, false, 'parked'],
    ['interrupted', false, false, true, true, true, false, 'parked'],
    ['completed', false, false, false, false, false, true, 'ended'],
    ['failed', false, false, false, false, false, true, 'ended'],
    ['user_control', true, true, true, false, true, false, 'parked'],
  ] as const)('%s', (state, busy, steerable, waiting, supersedable, current, terminal, action) => {
    expect({
      busy: isBusy(state),
      steerable: isSteerable(state),
      waiting: isWaiting(state),
      supersedable: isSupersedable(state),
      current: isCurrent(state),
      terminal: isTerminal(state),
      action: driveAction(state),
    }).toEqual({
      busy,
      steerable,
      waiting,
      supersedable,
      current,
      terminal,
      action,
    });
  });

  it('covers every state of the protocol', () => {
    expect(STATES).toHaveLength(11);
  });

  it.each([
    ['interrupted', undefined, true],
    ['budget_paused', undefined, true],
    ['failed', 'model_failed', true],
    ['failed', 'environment_drift', false],
    ['failed', 'user_failed', false],
    ['completed', undefined, false],
    ['streaming_model', undefined, false],
  ] as const)('resumable: %s (%s) → %s', (state, code, expected) => {
    const run = { state, env: {} as never, ...(code ? { error: { code, message: '' } } : {}) };
    expect(isResumable(run)).toBe(expected);
    expect(isResumable({ ...run, env: undefined })).toBe(false);
  });
});

const facts = (f: Partial<AssistantFacts>): AssistantFacts => ({
  round: undefined,
  stop: 'end',
  callCount: 0,
  toolsDisabled: false,
  pendingSteers: 0,
  intent: null,
  ...f,
});

describe('afterAssistant', () => {
  it.each<[string, Partial<AssistantFacts>, AfterAssistant]>([
    ['final answer', {}, { kind: 'end', to: 'completed', stopReason: 'end' }],
    [
      'tool_use with calls',
      { stop: 'tool_use', callCount: 2 },
      { kind: 'execute_tools', to: 'executing_tool' },
    ],
    [
      'max_tokens answer',
      { stop: 'max_tokens' },
      { kind: 'end', to: 'completed', stopReason: 'max_tokens' },
    ],
    ['refusal', { stop: 'refusal' }, { kind: 'end', to: 'completed', stopReason: 'refusal' }],
    ['stop error', { stop: 'error' }, { kind: 'end', to: 'failed', stopReason: 'error' }],
    [
      'steer pending on the final answer',
      { pendingSteers: 1 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    [
      'steer pending on a max_tokens answer',
      { stop: 'max_tokens', pendingSteers: 2 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    [
      'steer pending but stop error: fails (steers materialized by the end)',
      { stop: 'error', pendingSteers: 1 },
      { kind: 'end', to: 'failed', stopReason: 'error' },
    ],
    [
      'calls under max_tokens',
      { stop: 'max_tokens', callCount: 1 },
      {
        kind: 'close_calls',
        why: expect.stringContaining('"max_tokens"') as unknown as string,
        next: { kind: 'end', to: 'completed', stopReason: 'max_tokens' },
      },
    ],
    [
      'calls under max_tokens, steer pending',
      { stop: 'max_tokens', callCount: 1, pendingSteers: 1 },
      {
        kind: 'close_calls',
        why: expect.any(String) as unknown as string,
        next: { kind: 'model_again', to: 'streaming_model' },
      },
    ],
    [
      'calls with stop end: protocol error',
      { stop: 'end', callCount: 1 },
      {
        kind: 'close_calls',
        why: expect.any(String) as unknown as string,
        next: {
          kind: 'end',
          to: 'failed',
          stopReason: 'error',
          error: { code: 'protocol_error', message: expect.any(String) as unknown as string },
        },
      },
    ],
    [
      'breaker final reply',
      { toolsDisabled: true },
      { kind: 'end', to: 'completed', stopReason: 'tool_failures' },
    ],
    [
      'breaker final reply with calls',
      { toolsDisabled: true, stop: 'tool_use', callCount: 1 },
      {
        kind: 'close_calls',
        why: 'Not executed: tools are disabled after repeated failures.',
        next: { kind: 'end', to: 'completed', stopReason: 'tool_failures' },
      },
    ],
    [
      'breaker final reply, steer pending',
      { toolsDisabled: true, pendingSteers: 1 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    [
      'breaker final reply with calls, steer pending',
      { toolsDisabled: true, stop: 'tool_use', callCount: 1, pendingSteers: 1 },
      {
        kind: 'close_calls',
        why: expect.any(String) as unknown as string,
        next: { kind: 'model_again', to: 'streaming_model' },
      },
    ],
    [
      'plan <need_tool>',
      { round: 'plan', intent: 'need_tool' },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    ['plan without tag', { round: 'plan' }, { kind: 'model_again', to: 'streaming_model' }],
    [
      'plan <no_tool>',
      { round: 'plan', intent: 'no_tool' },
      { kind: 'model_again', to: 'streaming_model', round: 'continuation' },
    ],
    [
      'plan <no_tool>, steer pending: a full round',
      { round: 'plan', intent: 'no_tool', pendingSteers: 1 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    [
      'plan with calls',
      { round: 'plan', stop: 'tool_use', callCount: 1 },
      {
        kind: 'close_calls',
        why: 'Not executed: tools are not available in this round.',
        next: { kind: 'model_again', to: 'streaming_model' },
      },
    ],
    [
      'plan cut by max_tokens',
      { round: 'plan', stop: 'max_tokens' },
      { kind: 'end', to: 'completed', stopReason: 'max_tokens' },
    ],
    [
      'plan cut by max_tokens, steer pending',
      { round: 'plan', stop: 'max_tokens', pendingSteers: 1 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
    [
      'plan stop error',
      { round: 'plan', stop: 'error' },
      { kind: 'end', to: 'failed', stopReason: 'error' },
    ],
    [
      'continuation answer',
      { round: 'continuation' },
      { kind: 'end', to: 'completed', stopReason: 'end' },
    ],
    [
      'continuation answer, steer pending',
      { round: 'continuation', pendingSteers: 1 },
      { kind: 'model_again', to: 'streaming_model' },
    ],
  ])('%s', (_name, f, expected) => {
    expect(afterAssistant(facts(f))).toEqual(expected);
  });

  // Every combination: the invariants the table rows are instances of.
  const all: AssistantFacts[] = [];
  for (const round of [undefined, 'plan', 'continuation'] as const)
    for (const stop of STOPS)
      for (const callCount of [0, 2])
        for (const toolsDisabled of [false, true])
          for (const pendingSteers of [0, 1])
            for (const intent of [null, 'need_tool', 'no_tool'] as const)
              all.push({ round, stop, callCount, toolsDisabled, pendingSteers, intent });

  it(`over all ${all.length} inputs: calls run only from a tool_use message of a round with tools`, () => {
    for (const f of all) {
      const t = afterAssistant(f);
      const mayRun = f.callCount > 0 && f.stop === 'tool_use' && !f.round && !f.toolsDisabled;
      expect([f, t.kind === 'execute_tools']).toEqual([f, mayRun]);
      // Every call gets exactly one result: it runs, or it is closed.
      if (f.callCount > 0)
        expect([f, t.kind === 'execute_tools' || t.kind === 'close_calls']).toEqual([f, true]);
      else expect([f, t.kind === 'close_calls']).toEqual([f, false]);
    }
  });

  it(`over all ${all.length} inputs: an acked steer keeps the turn going unless it fails`, () => {
    for (const f of all) {
      if (!f.pendingSteers) continue;
      const t = afterAssistant(f);
      const next = t.kind === 'close_calls' ? t.next : t;
      if (next.kind === 'end') expect([f, next.to]).toEqual([f, 'failed']);
    }
  });
});

describe('afterToolResult', () => {
  const base = { consecutiveFailures: 0, toolsDisabled: false, index: 0, total: 1 };
  it.each([
    [
      'success, last call',
      { ...base, failure: 'success' as const },
      { kind: 'model_again', failures: 0, toolsDisabled: false, warn: false, disabledNow: false },
    ],
    [
      'success, more calls',
      { ...base, failure: 'success' as const, total: 3 },
      { kind: 'next_call', failures: 0 },
    ],
    [
      'success resets the breaker',
      { ...base, failure: 'success' as const, consecutiveFailures: 4 },
      { kind: 'model_again', failures: 0 },
    ],
    [
      'denial is neutral',
      { ...base, failure: 'neutral' as const, consecutiveFailures: 2 },
      { kind: 'model_again', failures: 2, warn: false },
    ],
    [
      'third failure warns',
      { ...base, failure: 'failure' as const, consecutiveFailures: 2 },
      { kind: 'model_again', failures: 3, warn: true, disabledNow: false },
    ],
    [
      'fifth failure disables, last call',
      { ...base, failure: 'failure' as const, consecutiveFailures: 4 },
      { kind: 'model_again', failures: 5, toolsDisabled: true, disabledNow: true },
    ],
    [
      'fifth failure disables mid-batch: the rest is closed',
      { ...base, failure: 'failure' as const, consecutiveFailures: 4, total: 3 },
      {
        kind: 'close_calls',
        why: 'Not executed: tools were disabled after repeated failures.',
        next: { kind: 'model_again', to: 'streaming_model' },
        disabledNow: true,
      },
    ],
    [
      'deny_stop, last call',
      {
        ...base,
        failure: 'neutral' as const,
        end: {
          kind: 'end' as const,
          to: 'completed' as const,
          stopReason: 'interrupted' as const,
        },
      },
      { kind: 'end', to: 'completed', stopReason: 'interrupted' },
    ],
    [
      'deny_stop mid-batch',
      {
        ...base,
        failure: 'neutral' as const,
        total: 2,
        end: {
          kind: 'end' as const,
          to: 'completed' as const,
          stopReason: 'interrupted' as const,
        },
      },
      {
        kind: 'close_calls',
        why: 'Not executed: the turn was stopped.',
        next: { kind: 'end', to: 'completed', stopReason: 'interrupted' },
      },
    ],
    [
      'marked failed',
      {
        ...base,
        failure: 'neutral' as const,
        end: { kind: 'end' as const, to: 'failed' as const, stopReason: 'error' as const },
      },
      { kind: 'end', to: 'failed' },
    ],
  ])('%s', (_n, f, expected) => {
    expect(afterToolResult(f)).toMatchObject(expected);
  });
});

describe('cutoffDecision', () => {
  const base = {
    tokenBudget: null,
    modelCalls: 0,
    usedSinceBaseline: 0,
    attempts: 0,
    maxAttempts: 3,
  };
  it.each([
    ['first call', base, { kind: 'call', attempt: 1 }],
    ['retry', { ...base, attempts: 2 }, { kind: 'call', attempt: 3 }],
    [
      'attempts exhausted',
      { ...base, attempts: 3 },
      { kind: 'attempts_exhausted', error: { code: 'model_failed' } },
    ],
    [
      'budget not checked before the first call',
      { ...base, tokenBudget: 10, usedSinceBaseline: 50 },
      { kind: 'call' },
    ],
    [
      'budget used',
      { ...base, tokenBudget: 100, modelCalls: 2, usedSinceBaseline: 100 },
      { kind: 'budget_pause', budget: 100 },
    ],
    [
      'budget left',
      { ...base, tokenBudget: 100, modelCalls: 2, usedSinceBaseline: 99 },
      { kind: 'call' },
    ],
  ])('%s', (_n, f, expected) => {
    expect(cutoffDecision(f)).toMatchObject(expected);
  });
});

describe('onProviderFailure', () => {
  it.each([
    [
      'retryable, attempts left',
      { code: 'overloaded', message: 'm', retryable: true, attempts: 1, maxAttempts: 3 },
      { kind: 'retry', attempt: 2, of: 3 },
    ],
    [
      'retryable, no attempts left',
      { code: 'overloaded', message: 'm', retryable: true, attempts: 3, maxAttempts: 3 },
      { kind: 'fail', error: { code: 'overloaded', message: 'm' } },
    ],
    [
      'not retryable',
      { code: 'invalid_request', message: 'bad', retryable: false, attempts: 1, maxAttempts: 3 },
      { kind: 'fail', error: { code: 'invalid_request', message: 'bad' } },
    ],
    [
      'aborted is never retried',
      { code: 'aborted', message: 'x', retryable: true, attempts: 0, maxAttempts: 3 },
      { kind: 'fail' },
    ],
  ])('%s', (_n, f, expected) => {
    expect(onProviderFailure(f)).toMatchObject(expected);
  });
});

describe('afterDecision / afterUncertainResolution', () => {
  it.each<[Decision, string]>([
    ['allow_once', 'approved'],
    ['allow_site', 'approved'],
    ['deny', 'denied'],
    ['deny_stop', 'denied_stop'],
  ])('%s → %s', (d, phase) => expect(afterDecision(d).phase).toBe(phase));
  it.each([
    ['retry', 'approved'],
    ['mark_done', 'resolved_done'],
    ['fail', 'resolved_failed'],
  ] as const)('%s → %s', (r, phase) => expect(afterUncertainResolution(r).phase).toBe(phase));
});

describe('onInterrupt', () => {
  const calls = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  it('closes the running call with its partial progress and the rest as not executed', () => {
    const t = onInterrupt({
      state: 'executing_tool',
      toolCalls: calls,
      nextToolIndex: 1,
      pendingTool: { toolCallId: 'b', phase: 'executing' },
      partial: 'half',
    });
    expect(t).toEqual({
      kind: 'interrupt',
      close: [
        { index: 1, why: expect.stringContaining('Partial progress: half') },
        { index: 2, why: 'Not executed: the user interrupted the turn.' },
      ],
    });
  });
  it('withdraws a pending approval or question', () => {
    expect(
      onInterrupt({
        state: 'waiting_approval',
        toolCalls: calls,
        nextToolIndex: 2,
        pendingTool: { toolCallId: 'c', phase: 'awaiting_approval', approvalId: 'apr1' },
      }),
    ).toEqual({
      kind: 'interrupt',
      close: [{ index: 2, why: 'Not executed: the user interrupted the turn.' }],
      cancelApproval: 'apr1',
    });
    expect(
      onInterrupt({
        state: 'waiting_interaction',
        toolCalls: calls,
        nextToolIndex: 2,
        pendingTool: { toolCallId: 'c', phase: 'awaiting_interaction', interactionId: 'int1' },
      }),
    ).toMatchObject({ cancelInteraction: 'int1' });
  });
  it('a model stream closes no calls', () => {
    expect(onInterrupt({ state: 'streaming_model', toolCalls: calls, nextToolIndex: 3 })).toEqual({
      kind: 'interrupt',
      close: [],
    });
  });
  it.each([
    'queued',
    'paused_uncertain',
    'budget_paused',
    'interrupted',
    'completed',
    'failed',
  ] as const)('%s: nothing to stop', (state) => {
    expect(onInterrupt({ state, toolCalls: calls, nextToolIndex: 0 })).toEqual({ kind: 'noop' });
  });
});

describe('onResume', () => {
  const cursor = (next: number) => ({
    modelCalls: 1,
    toolCalls: [{ id: 'a', nodeId: 'n', name: 't', args: {} }],
    nextToolIndex: next,
  });
  it.each([
    [
      'a cursor inside a batch (no way of stopping leaves one)',
      { state: 'interrupted' as const, stepCursor: cursor(0) },
      { kind: 'reject', message: expect.stringMatching(/middle of a batch/) },
    ],
    [
      'interrupted after the batch',
      { state: 'interrupted' as const, stepCursor: cursor(1) },
      { kind: 'continue', to: 'streaming_model' },
    ],
    [
      'budget paused',
      { state: 'budget_paused' as const, stepCursor: cursor(1) },
      { kind: 'continue', to: 'streaming_model' },
    ],
    ['completed', { state: 'completed' as const, stepCursor: cursor(1) }, { kind: 'reject' }],
  ])('%s', (_n, r, expected) => {
    expect(onResume({ ...r, env: {} as never })).toMatchObject(expected);
  });
});

describe('recovery: the crash table', () => {
  it.each([
    ['queued', 'start_queue'],
    ['streaming_model', 'verify_then_drive'],
    ['executing_tool', 'verify_then_drive'],
    ['waiting_approval', 'verify_then_reshow'],
    ['waiting_interaction', 'verify_then_reshow'],
    ['paused_uncertain', 'wait'],
    ['budget_paused', 'wait'],
    ['interrupted', 'wait'],
    ['completed', 'none'],
    ['failed', 'none'],
    // The user holds the page: nothing is driven until they hand it back.
    ['user_control', 'wait'],
  ] as const)('%s → %s', (state, action) => expect(recoveryAction(state)).toBe(action));
});

describe('RUN_TRANSITIONS (the table in docs/recovery.md)', () => {
  const has = (from: string, to: string) =>
    RUN_TRANSITIONS.some((t) => t.from === from && t.to === to);

  it('lists every edge afterAssistant can take', () => {
    for (const round of [undefined, 'plan', 'continuation'] as const)
      for (const stop of STOPS)
        for (const callCount of [0, 1])
          for (const toolsDisabled of [false, true])
            for (const pendingSteers of [0, 1]) {
              const t = afterAssistant(
                facts({ round, stop, callCount, toolsDisabled, pendingSteers, intent: 'no_tool' }),
              );
              const next = t.kind === 'close_calls' ? t.next : t;
              expect([t, edgeRow('streaming_model', 'afterAssistant', next.to)]).toEqual([
                t,
                expect.anything(),
              ]);
            }
  });

  it('lists every edge afterToolResult can take', () => {
    for (const failure of ['success', 'failure', 'neutral'] as const)
      for (const end of [
        undefined,
        { kind: 'end' as const, to: 'completed' as const, stopReason: 'interrupted' as const },
        { kind: 'end' as const, to: 'failed' as const, stopReason: 'error' as const },
      ])
        for (const total of [1, 2]) {
          const t = afterToolResult({
            failure,
            consecutiveFailures: 4,
            toolsDisabled: false,
            index: 0,
            total,
            ...(end ? { end } : {}),
          });
          const next = t.kind === 'close_calls' ? t.next : t;
          expect(edgeRow('executing_tool', 'afterToolResult', next.to)).toBeDefined();
        }
  });

  it('lists every edge the other deciders can take', () => {
    for (const tokenBudget of [null, 10])
      for (const attempts of [0, 3]) {
        const t = cutoffDecision({
          tokenBudget,
          modelCalls: 1,
          usedSinceBaseline: 20,
          attempts,
          maxAttempts: 3,
        });
        if (t.kind !== 'call')
          expect(edgeRow('streaming_model', 'cutoffDecision', t.to)).toBeDefined();
      }
    const fail = onProviderFailure({
      code: 'x',
      message: 'm',
      retryable: false,
      attempts: 0,
      maxAttempts: 3,
    });
    expect(
      fail.kind === 'fail' && edgeRow('streaming_model', 'onProviderFailure', fail.to),
    ).toBeTruthy();
    for (const d of ['allow_once', 'allow_site', 'deny', 'deny_stop'] as const)
      expect(edgeRow('waiting_approval', 'afterDecision', afterDecision(d).to)).toBeDefined();
    for (const r of ['retry', 'mark_done', 'fail'] as const)
      expect(
        edgeRow('paused_uncertain', 'afterUncertainResolution', afterUncertainResolution(r).to),
      ).toBeDefined();
    for (const state of STATES)
      for (const next of [0, 1]) {
        const t = onResume({
          state,
          env: {} as never,
          stepCursor: { modelCalls: 1, toolCalls: [{ id: 'c' } as never], nextToolIndex: next },
        });
        if (t.kind === 'continue') expect(edgeRow(state, 'onResume', t.to)).toBeDefined();
      }
  });

  it('every state but the terminal ones has a way out, and every interrupt edge ends interrupted', () => {
    for (const s of STATES) {
      if (isTerminal(s)) continue;
      expect([s, RUN_TRANSITIONS.some((t) => t.from === s)]).toEqual([s, true]);
    }
    for (const t of RUN_TRANSITIONS.filter((x) => x.event === 'interrupt')) {
      expect(isSteerable(t.from as never)).toBe(true);
      expect(t.to).toBe('interrupted');
    }
    for (const s of STATES.filter(isSteerable)) expect(has(s, 'interrupted')).toBe(true);
  });

  it('has one row per edge and decider (no duplicates)', () => {
    expect(new Set(RUN_TRANSITIONS.map((t) => `${t.from}|${t.by}|${t.to}`)).size).toBe(
      RUN_TRANSITIONS.length,
    );
  });

  it('names a function of src as the decider of every edge', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join, resolve } = await import('node:path');
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [readFileSync(join(dir, e.name), 'utf8')],
      );
    const src = walk(resolve(__dirname, '../../../src')).join('\n');
    for (const by of new Set(RUN_TRANSITIONS.map((t) => t.by)))
      expect([by, new RegExp(`(function|const) ${by}\\b`).test(src)]).toEqual([by, true]);
  });
});

describe('PreparedToolCall phase changes (prepared-call.ts)', () => {
  const base = { toolCallId: 'c1', nodeId: 'n1', name: 'writer', params: { v: 1 }, attempts: 0 };
  const parked = {
    ...base,
    phase: 'awaiting_approval' as const,
    approvalId: 'apr1',
    approvalDigest: 'd',
    target: { origin: 'https://a.example' },
    ruleVersion: 2,
    descriptorDigest: 'dd',
  };

  it('a decision keeps what the call was judged on; a denial carries its reason', async () => {
    const { decidedCall } = await import('../../../src/engine/call/prepared-call');
    // An approval of the call covers the receiver it named (the gate at the moment of effect).
    expect(decidedCall(parked, 'allow_site', 3)).toEqual({
      ...parked,
      phase: 'approved',
      ruleVersion: 3,
      grants: [{ origin: 'https://a.example' }],
    });
    expect(decidedCall(parked, 'deny', 2, 'not that one')).toEqual({
      ...parked,
      phase: 'denied',
      denyReason: 'not that one',
    });
    expect(decidedCall(parked, 'deny_stop', 2)).toEqual({ ...parked, phase: 'denied_stop' });
  });

  it('a decision about a held receiver keeps the call’s judgement and adds or keeps the receiver', async () => {
    const { decidedCall } = await import('../../../src/engine/call/prepared-call');
    const holding = {
      target: { origin: 'https://b.example' },
      what: 'the click lands on b',
      resume: 4,
    };
    const held = { ...parked, grants: [{ origin: 'https://a.example' }], holding };
    expect(decidedCall(held, 'allow_once', 9)).toEqual({
      ...parked,
      phase: 'approved',
      grants: [{ origin: 'https://a.example' }, { origin: 'https://b.example' }],
      resume: 4,
    });
    expect(decidedCall(held, 'deny', 9, 'no')).toEqual({
      ...held,
      phase: 'denied',
      denyReason: 'no',
    });
  });

  it('starting counts the attempt and keeps the judgement; an answer drops it', async () => {
    const { answeredCall, startedCall } = await import('../../../src/engine/call/prepared-call');
    const started = startedCall(
      { ...parked, phase: 'approved', attempts: 1 },
      base,
      { v: 1 },
      { origin: 'https://a.example' },
    );
    expect(started).toEqual({
      ...base,
      phase: 'executing',
      attempts: 2,
      target: { origin: 'https://a.example' },
      ruleVersion: 2,
      descriptorDigest: 'dd',
      approvalId: 'apr1',
      approvalDigest: 'd',
    });
    expect(
      answeredCall({ ...base, phase: 'awaiting_interaction', interactionId: 'int1' }, 'int1'),
    ).toEqual({ ...base, phase: 'answered', interactionId: 'int1' });
  });

  it('a retry after an uncertain outcome is judged afresh when nothing was judged before', async () => {
    const { resolvedCall } = await import('../../../src/engine/call/prepared-call');
    const unknown = { ...base, phase: 'executing' as const, attempts: 1 };
    expect(resolvedCall(unknown, 'retry')).toMatchObject({
      phase: 'approved',
      target: {},
      ruleVersion: -1,
      descriptorDigest: '',
    });
    expect(
      resolvedCall({ ...unknown, target: { origin: 'https://a.example' } }, 'mark_done'),
    ).toEqual({
      ...base,
      attempts: 1,
      phase: 'resolved_done',
      target: { origin: 'https://a.example' },
    });
    expect(resolvedCall(unknown, 'fail').phase).toBe('resolved_failed');
  });
});

describe('the docs carry the table', () => {
  it('docs/recovery.md and docs/architecture.md show every transition, as generated', async () => {
    const { readFileSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const { transitionTableMarkdown } = await import('../../../src/engine/run/run-transitions');
    for (const doc of ['docs/recovery.md', 'docs/architecture.md']) {
      const text = readFileSync(resolve(__dirname, '../../..', doc), 'utf8');
      expect([doc, text.includes(transitionTableMarkdown())]).toEqual([doc, true]);
      expect([doc, text.includes(`${RUN_TRANSITIONS.length} transitions`)]).toEqual([doc, true]);
    }
  });
});
