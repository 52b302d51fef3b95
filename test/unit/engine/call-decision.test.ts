import { describe, expect, it } from 'vitest';
import {
  afterRecheck,
  afterVerdict,
  type CallFacts,
  decideCall,
  MAX_TOOL_ATTEMPTS,
} from '../../../src/engine/call/call-decision';

const facts = (f: Partial<CallFacts>): CallFacts => ({
  name: 'click',
  known: true,
  catalog: ['click', 'read'],
  changed: false,
  label: 'Click',
  effects: 'write',
  recovery: undefined,
  invalid: null,
  interactive: false,
  ...f,
});
const pending = (phase: NonNullable<CallFacts['pending']>['phase'], attempts = 0) => ({
  pending: { phase, attempts },
});

/** The tool step's decision, without Dexie or an engine: each row is one way a call goes on. */
describe('decideCall', () => {
  it.each<[string, Partial<CallFacts>, string, Record<string, unknown>?]>([
    [
      'unknown tool',
      { known: false },
      'finish',
      { callState: 'invalid', outcome: 'error', failure: 'failure' },
    ],
    [
      'tool changed since the turn began',
      { changed: true },
      'finish',
      { outcome: 'error', failure: 'neutral' },
    ],
    ['new valid call', {}, 'judge'],
    [
      'new call, bad arguments',
      { invalid: 'bad' },
      'finish',
      { outcome: 'invalid', failure: 'failure' },
    ],
    ['new call of a tool that asks', { interactive: true }, 'interact'],
    ['bad arguments win over asking', { interactive: true, invalid: 'bad' }, 'finish'],
    ['awaiting approval', pending('awaiting_approval'), 'wait'],
    ['awaiting an answer', pending('awaiting_interaction'), 'wait'],
    [
      'denied',
      pending('denied'),
      'finish',
      { callState: 'rejected', outcome: 'denied', failure: 'neutral' },
    ],
    [
      'denied and stopped',
      pending('denied_stop'),
      'finish',
      { end: expect.objectContaining({ state: 'completed', stopReason: 'interrupted' }) },
    ],
    ['answered', pending('answered'), 'answer'],
    ['approved', pending('approved'), 'recheck'],
    [
      'marked done',
      pending('resolved_done'),
      'finish',
      { ok: true, outcome: 'marked_done', failure: 'success' },
    ],
    [
      'marked failed',
      pending('resolved_failed'),
      'finish',
      { ok: false, end: expect.objectContaining({ state: 'failed' }) },
    ],
    ['executing after a restart, a write', pending('executing', 1), 'pause_uncertain'],
    [
      'executing after a restart, a read',
      { ...pending('executing', 1), effects: 'read' },
      'recheck',
    ],
    [
      'executing after a restart, retry-safe',
      { ...pending('executing', 1), recovery: 'retry-safe' },
      'recheck',
    ],
    [
      'crash loop',
      pending('executing', MAX_TOOL_ATTEMPTS),
      'finish',
      { outcome: 'lost', failure: 'failure' },
    ],
    ['pending ignores argument checks', { ...pending('approved'), invalid: 'bad' }, 'recheck'],
  ])('%s → %s', (_n, f, kind, finish) => {
    const d = decideCall(facts(f));
    expect(d.kind).toBe(kind);
    if (finish && d.kind === 'finish') expect(d.finish).toMatchObject(finish);
  });
});

describe('afterVerdict and afterRecheck', () => {
  it('deny finishes denied (neutral), ask asks with its options, allow executes', () => {
    expect(afterVerdict({ kind: 'deny', reason: 'blocked' })).toMatchObject({
      kind: 'finish',
      finish: {
        outcome: 'denied',
        failure: 'neutral',
        content: [{ text: 'Not allowed: blocked' }],
      },
    });
    expect(afterVerdict({ kind: 'ask', reason: 'write', options: ['allow_once'] })).toEqual({
      kind: 'ask',
      reason: 'write',
      options: ['allow_once'],
    });
    expect(afterVerdict({ kind: 'allow', reason: 'read' })).toEqual({ kind: 'execute' });
  });

  it('a drifted approval is asked again, unless a re-run after a restart is simply allowed now', () => {
    const ask = { kind: 'ask' as const, drift: 'origin', options: ['allow_once' as const] };
    const allow = { kind: 'allow' as const, reason: 'read' };
    const askV = { kind: 'ask' as const, reason: 'write', options: [] };
    expect(afterRecheck(ask, { verdict: allow, phase: 'executing' })).toEqual({ kind: 'execute' });
    expect(afterRecheck(ask, { verdict: allow, phase: 'approved' })).toMatchObject({
      kind: 'ask',
      reason: 'changed:origin',
    });
    expect(afterRecheck(ask, { verdict: askV, phase: 'executing' })).toMatchObject({ kind: 'ask' });
    expect(
      afterRecheck({ kind: 'deny', reason: 'blocked' }, { verdict: allow, phase: 'approved' }),
    ).toMatchObject({ kind: 'finish', finish: { outcome: 'denied' } });
    expect(afterRecheck({ kind: 'dispatch' }, { verdict: allow, phase: 'approved' })).toEqual({
      kind: 'execute',
    });
  });
});
