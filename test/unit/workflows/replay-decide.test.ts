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

const page = (url: string, outline: string) =>
  `Snapshot.\n<untrusted_page_content source="${url}">\nTitle: T\nURL: ${url}\n${outline}\n</untrusted_page_content>`;

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
  it('walks act → observe → act → observe → done, following the tab a step opened', () => {
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
    const d2 = decideReplay(s, { ok: true, text: 'Opened', tabId: 42 });
    expect(d2).toEqual({ kind: 'observe' });
    expect(withReplayTab(s, 'browser_snapshot', {})).toEqual({ tabId: 42 });
    s = advance(s, d2, 'c2', true);
    expect(s.replayed).toBe(1);
    const d3 = decideReplay(s, {
      ok: true,
      text: page('https://a.example/', '- button "Go" [ref=e9]'),
    });
    expect(d3).toEqual({ kind: 'act', tool: 'browser_click', params: { ref: 'e9' }, step: 2 });
    s = advance(s, d3, 'c3', true);
    expect(decideReplay(s, { ok: true, text: 'Clicked' })).toEqual({ kind: 'observe' });
    s = advance(s, { kind: 'observe' }, 'c4', true);
    expect(s.replayed).toBe(2);
    expect(decideReplay(s, { ok: true, text: page('https://a.example/', '# Done') })).toEqual({
      kind: 'done',
    });
    expect(decideReplay(s, { ok: true, text: page('https://a.example/', '# Oops') })).toMatchObject(
      { kind: 'diverged', reason: 'check_failed', step: 3 },
    );
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
