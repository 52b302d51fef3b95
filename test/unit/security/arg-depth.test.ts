/**
 * Tool arguments nested thousands deep (a model or a page-steered model can send them) are
 * refused as invalid arguments — the run goes on — instead of crashing the run (issue 13).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  argumentDepthError,
  jsonDepthError,
  MAX_ARGUMENT_DEPTH,
} from '../../../src/tools/argument-depth';
import { makeRig, testTool } from '../engine/harness';

const DEPTH = 20_000;
const nested = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe('tool-argument depth', () => {
  it('is measured without recursion and capped at 64', () => {
    expect(MAX_ARGUMENT_DEPTH).toBe(64);
    expect(argumentDepthError(nested(63))).toBeUndefined();
    expect(argumentDepthError(nested(65))).toMatch(/nested more than 64 levels/);
    expect(argumentDepthError(nested(200_000))).toMatch(/nested more than 64 levels/);
    expect(argumentDepthError([[[[1]]]])).toBeUndefined();
    // The text check agrees with the value check, strings with brackets included.
    for (const depth of [0, 1, 63, 64, 65, 300]) {
      const json = JSON.stringify({ s: '{{[[\\"', v: nested(depth) });
      expect(jsonDepthError(json) === undefined, `depth ${depth}`).toBe(
        argumentDepthError(JSON.parse(json)) === undefined,
      );
    }
  });

  it('a call nested 20,000 deep is returned as invalid and the run completes', async () => {
    // A schema that accepts any JSON, as an MCP tool's input schema may.
    const tool = Object.assign(testTool('act', { effects: 'read' }), {
      parameters: z.object({ value: z.unknown() }),
    });
    const rig = await makeRig({
      script: [
        {
          toolCalls: [
            { name: 'act', rawArgs: `{"value":${'{"a":'.repeat(DEPTH)}"x"${'}'.repeat(DEPTH)}}` },
          ],
        },
        { text: 'done' },
      ],
      tools: [tool],
    });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    const result = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .find((i) => i.kind === 'tool_result');
    expect(result).toMatchObject({ ok: false, outcome: 'invalid' });
    expect(tool.runs).toBe(0);
    const complete = rig.client.of('turn.complete').find((e) => e.runId === runId);
    expect(complete).toMatchObject({ stopReason: 'end' });
  });
});
