/**
 * The worker's side of the guard (src/tools/browser/input/receiver-guard.ts and the accounting in
 * guarded-keys.ts): which frames are cleared is the probe's own decision, and a held key call
 * resumes from what the documents received, not from what was sent.
 */
import { describe, expect, it } from 'vitest';
import { account, type StrokeRun } from '../../../src/tools/browser/input/guarded-keys';
import { frameClearances } from '../../../src/tools/browser/input/receiver-guard';
import type { ReceiverGate, ToolTarget } from '../../../src/tools/types';

const SHOP = 'http://shop.test';
const MAIL = 'http://mail.test';
const gate = (allowed: string[], denied: string[] = []): ReceiverGate => ({
  check: (t: ToolTarget) =>
    t.forbidden
      ? { kind: 'deny', reason: t.forbidden }
      : t.origin && denied.includes(t.origin)
        ? { kind: 'deny', reason: 'blocked' }
        : t.origin && allowed.includes(t.origin)
          ? { kind: 'allow', reason: 'rule' }
          : { kind: 'hold', reason: 'not covered' },
});

const frames = [
  { frameId: 0, url: `${SHOP}/`, width: 800, height: 600, origin: SHOP, path: [] },
  { frameId: 4, url: `${MAIL}/inbox`, width: 300, height: 100, origin: MAIL, path: [0] },
  // An about:blank frame the shop wrote: its creator's origin.
  { frameId: 5, url: 'about:blank', width: 10, height: 10, origin: SHOP, path: [1] },
  { frameId: 6, url: 'about:srcdoc', width: 10, height: 10, origin: 'null', path: [2] },
  { frameId: 7, url: `${MAIL}/x`, width: 10, height: 10, path: [3] },
];

describe('frameClearances', () => {
  it('clears the frames the gate allows, and nothing sandboxed or of unknown origin', () => {
    expect(frameClearances(gate([SHOP]), 1, frames)).toEqual([
      { frameId: 0, cleared: true },
      { frameId: 4, cleared: false },
      { frameId: 5, cleared: true },
      { frameId: 6, cleared: false },
      { frameId: 7, cleared: false },
    ]);
  });

  it("clears the judged document's origin (what the call's verdict covered), never a denied one", () => {
    const c = frameClearances(gate([], [SHOP]), 1, frames, MAIL);
    expect(c.filter((f) => f.cleared).map((f) => f.frameId)).toEqual([4]);
    // The judged origin does not override a deny.
    expect(frameClearances(gate([], [MAIL]), 1, frames, MAIL).some((f) => f.cleared)).toBe(false);
  });

  it('clears nothing when the top frame is not listed', () => {
    expect(frameClearances(gate([SHOP, MAIL]), 1, frames.slice(1)).some((f) => f.cleared)).toBe(
      false,
    );
  });
});

describe('account', () => {
  const held = (delivered: number): StrokeRun => ({
    delivered,
    stopped: {
      kind: 'held',
      held: {
        target: { tabId: 1, origin: MAIL },
        what: 'the next key would land in a frame from http://mail.test',
      },
    },
  });
  const where = 'a frame from http://mail.test (in http://shop.test)';

  it('a hold resumes at the first key the documents did not receive', () => {
    const r = account(held(4), { accepted: 3, complete: true, swallowed: 1 }, 0, 11, where);
    expect(r.delivered).toBe(3);
    expect(r.stopped?.kind === 'held' && r.stopped.held).toMatchObject({
      partial: `3 of 11 keys went in before focus moved to ${where}`,
      resume: { strokes: 3 },
    });
  });

  it('counts from where an earlier run of the call stopped', () => {
    const r = account(held(9), { accepted: 5, complete: true, swallowed: 1 }, 3, 11, where);
    expect(r.delivered).toBe(8);
    expect(r.stopped?.kind === 'held' && r.stopped.held.resume).toEqual({ strokes: 8 });
  });

  it('without keys in, the hold says nothing went in', () => {
    const r = account(held(0), { accepted: 0, complete: true, swallowed: 0 }, 0, 11, where);
    expect(r.stopped?.kind === 'held' && r.stopped.held.partial).toBeUndefined();
    expect(r.stopped?.kind === 'held' && r.stopped.held.resume).toEqual({ strokes: 0 });
  });

  it('an incomplete tally (a frame not armed) falls back to what was sent', () => {
    const r = account(held(4), { accepted: 1, complete: false, swallowed: 1 }, 0, 11, where);
    expect(r.delivered).toBe(4);
  });

  it('keys that no document refused but none counted (a native popup had them) stand as sent', () => {
    expect(
      account({ delivered: 3 }, { accepted: 1, complete: true, swallowed: 0 }, 0, 3, ''),
    ).toEqual({ delivered: 3 });
    expect(
      account(held(4), { accepted: 2, complete: true, swallowed: 0 }, 0, 11, where).delivered,
    ).toBe(4);
  });

  it('never claims more than was sent', () => {
    const r = account({ delivered: 5 }, { accepted: 9, complete: true, swallowed: 0 }, 0, 5, '');
    expect(r).toEqual({ delivered: 5 });
  });

  it('a run that was not held but lost keys says so', () => {
    const r = account({ delivered: 11 }, { accepted: 9, complete: true, swallowed: 2 }, 0, 11, '');
    expect(r.delivered).toBe(9);
    expect(r.short).toMatch(/^Only 9 of 11 keys reached the page/);
  });
});
