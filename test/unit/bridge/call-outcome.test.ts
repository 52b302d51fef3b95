import { describe, expect, it } from 'vitest';
import {
  outcomeOfEnd,
  outcomeOfResult,
  outcomeOfSnapshot,
} from '../../../src/bridge-link/call-outcome';

const t = (text: string) => ({ type: 'text' as const, text });

describe('what an outside agent hears about its call', () => {
  it.each([
    [{ ok: true, content: [t('ok')] }, false, /^ok$/],
    [{ ok: false, content: [t('boom')], outcome: 'error' as const }, true, /^boom$/],
    [{ ok: false, content: [t('x')], outcome: 'denied' as const }, true, /denied this call/],
    [
      { ok: false, content: [t('x')], outcome: 'interrupted' as const },
      true,
      /^Interrupted by the user/,
    ],
  ])('a recorded result %#', (r, isError, first) => {
    const o = outcomeOfResult(r);
    expect(o.isError).toBe(isError);
    expect((o.content[0] as { text: string }).text).toMatch(first);
  });

  it('images pass as MCP image content', () => {
    expect(
      outcomeOfResult({
        ok: true,
        content: [{ type: 'image', mimeType: 'image/png', dataBase64: 'AA' }],
      }).content,
    ).toEqual([{ type: 'image', data: 'AA', mimeType: 'image/png' }]);
  });

  it.each([
    ['executing_tool', undefined],
    ['waiting_approval', undefined],
    ['paused_uncertain', /may or may not have happened/],
    ['interrupted', /did not run/],
    [undefined, /without a result/],
  ] as const)('no result yet, run %s', (state, says) => {
    const o = outcomeOfSnapshot(undefined, state);
    if (!says) expect(o).toBeUndefined();
    else expect(JSON.stringify(o?.content)).toMatch(says);
  });

  it('a run that ended without a result says why', () => {
    expect(
      (outcomeOfEnd('error', { message: 'no tab' }).content[0] as { text: string }).text,
    ).toMatch(/\(error\): no tab/);
  });
});
