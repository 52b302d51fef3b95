import { describe, expect, it } from 'vitest';
import { AgentEvent } from '../../../src/protocol';
import { Normalizer, expectGolden, runGoldenTurn } from './golden';

describe('golden: wire shapes of a turn with a tool call, an approval and a final answer', () => {
  it('freezes the exact ops and event sequence (test/fixtures/golden/wire-turn.json)', async () => {
    const { ops, events } = await runGoldenTurn();
    // Sanity before freezing: every event is valid and the turn ends last.
    for (const ev of events) expect(AgentEvent.safeParse(ev).success).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'turn.complete', stopReason: 'end' });
    const types = events.map((e) => e.type);
    expect(types.indexOf('approval.request')).toBeLessThan(types.indexOf('approval.resolved'));
    const norm = new Normalizer();
    expectGolden('wire-turn', norm.normalize({ ops, events }));
  });
});
