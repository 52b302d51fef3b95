import { describe, expect, it } from 'vitest';
import {
  advance,
  decideReplay,
  followTab,
  rewind,
  withReplayTab,
  type ReplayState,
} from '../../../src/workflows/replay';
import type { WorkflowDefinition } from '../../../src/workflows/types';
import { deriveWorkflow } from '../../../src/workflows/derive';
import { inputValues } from '../../../src/workflows/inputs';
import { callResultOf, callsOf, capturedTurn } from './real-snapshots';

const DEF: WorkflowDefinition = {
  v: 1,
  task: 'open {{q}}',
  inputs: [{ name: 'q', default: 'x' }],
  steps: [
    {
      tool: 'browser_tab_open',
      params: { url: 'https://a.example/', active: true },
      summary: 'Open a',
    },
    {
      tool: 'browser_click',
      params: {},
      locator: {
        role: 'button',
        name: 'Go',
        landmarks: [],
        headings: [],
        nearText: [],
        frameId: 0,
        urlPattern: 'https://a.example/',
      },
      summary: 'Click Go',
    },
  ],
  check: { texts: ['Done'] },
};

function start(): ReplayState {
  return {
    workflowId: 'w',
    definition: DEF,
    values: { q: 'x' },
    next: 0,
    phase: 'observe',
    replayed: 0,
    mode: 'replay',
    fallback: 'model',
  };
}

describe('decideReplay', () => {
  it.each(['shop-qty2-replay', 'shop-qty2-replay-redesigned'] as const)(
    'on the real pages of %s: every decision acts on the element the real replay acted on, then done',
    (name) => {
      const d = deriveWorkflow(capturedTurn('shop-qty2-model-turn').items);
      if (d.kind !== 'ok') throw new Error(d.message);
      const def = d.workflow;
      // The real replay's calls, in order: each snapshot result feeds the next decision.
      const calls = callsOf(capturedTurn(name).items);
      let s: ReplayState = {
        workflowId: 'w',
        definition: def,
        values: inputValues(def.inputs),
        next: 0,
        phase: 'observe',
        replayed: 0,
        mode: 'replay',
        fallback: 'stop',
      };
      let last: ReturnType<typeof callResultOf> | undefined;
      const acted: unknown[] = [];
      for (const { call, result } of calls) {
        const dec = decideReplay(s, last);
        if (dec.kind === 'observe') expect(call.name).toBe('browser_snapshot');
        else if (dec.kind === 'act') {
          expect(dec.tool).toBe(call.name);
          // The ref resolved from this page's structure is the ref the real replay acted on.
          expect(dec.params).toEqual(call.params);
          acted.push(dec.params);
        } else throw new Error(`step ${s.next + 1}: ${JSON.stringify(dec)}`);
        s = advance(s, dec, call.toolCallId, last?.ok);
        last = callResultOf(result);
      }
      expect(decideReplay(s, last)).toEqual({ kind: 'done' });
      expect(acted).toHaveLength(def.steps.length);
      expect(acted[2]).toMatchObject({ text: '2' });
    },
  );

  it("on a real page that is not the step's, it diverges and does not guess", () => {
    const d = deriveWorkflow(capturedTurn('shop-qty2-model-turn').items);
    if (d.kind !== 'ok') throw new Error(d.message);
    const calls = callsOf(capturedTurn('shop-qty2-replay').items);
    const cart = callResultOf(calls.at(-1)!.result);
    // Step 4 (Add to cart) observed on the cart page: no such button there.
    const s: ReplayState = {
      workflowId: 'w',
      definition: d.workflow,
      values: inputValues(d.workflow.inputs),
      next: 3,
      phase: 'act',
      awaiting: { callId: 'c', kind: 'snapshot' },
      replayed: 3,
      mode: 'replay',
      fallback: 'stop',
    };
    expect(decideReplay(s, cart)).toMatchObject({ kind: 'diverged', step: 4 });
    // A snapshot result without its structure is not read from its text.
    expect(decideReplay(s, { ...cart, outline: undefined })).toMatchObject({
      kind: 'diverged',
      reason: 'page_differs',
    });
  });

  it('follows the tab a step opened: later browser calls name it', () => {
    let s = start();
    const d1 = decideReplay(s, undefined);
    expect(d1).toEqual({
      kind: 'act',
      tool: 'browser_tab_open',
      params: { url: 'https://a.example/', active: true },
      step: 1,
    });
    expect(withReplayTab(s, 'browser_tab_open', { url: 'u' })).toEqual({ url: 'u' });
    s = advance(s, d1, 'c1', undefined);
    s = followTab(s, { ok: true, text: 'Opened', tabId: 42 });
    expect(s.tabId).toBe(42);
    expect(decideReplay(s, { ok: true, text: 'Opened', tabId: 42 })).toEqual({ kind: 'observe' });
    expect(withReplayTab(s, 'browser_snapshot', {})).toEqual({ tabId: 42 });
    expect(withReplayTab(s, 'browser_tabs', {})).toEqual({});
  });

  it('a failed action diverges at its step and a resume retries it; an unrun call is redone', () => {
    let s = advance(start(), decideReplay(start(), undefined), 'c1');
    const d = decideReplay(s, { ok: false, text: 'Error: blocked' });
    expect(d).toMatchObject({
      kind: 'diverged',
      reason: 'step_failed',
      step: 1,
      message: 'Step 1 failed: Error: blocked',
    });
    const after = advance(s, d);
    expect(after).toMatchObject({ next: 0, phase: 'observe', diverged: { step: 1 } });
    expect(after.awaiting).toBeUndefined();
    s = rewind(s);
    expect(s).toMatchObject({ next: 0, phase: 'observe' });
  });

  it('a missing input is a divergence, not an empty value', () => {
    const def: WorkflowDefinition = {
      ...DEF,
      steps: [
        { tool: 'browser_navigate', params: { url: 'https://a.example/?q={{q}}' }, summary: 'Go' },
      ],
    };
    expect(decideReplay({ ...start(), definition: def, values: {} }, undefined)).toMatchObject({
      kind: 'diverged',
      reason: 'missing_input',
    });
    expect(decideReplay({ ...start(), definition: def }, undefined)).toMatchObject({
      kind: 'act',
      params: { url: 'https://a.example/?q=x' },
    });
  });
});
