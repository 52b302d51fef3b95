import { describe, expect, it } from 'vitest';
import type { Item } from '../../../src/protocol';
import {
  canvasSize,
  latestTask,
  type RecordingFrame,
} from '../../../sidepanel/export/recording-export';
import { localizedCaptions } from '../../../sidepanel/export/recording-captions';

const frame = (
  frameId: string,
  runId: string,
  toolCallId: string,
  summary: string,
): RecordingFrame => ({
  frameId,
  runId,
  toolCallId,
  tool: 'browser_type',
  at: 1,
  summary,
  mimeType: 'image/jpeg',
  width: 399,
  height: 250,
  dataBase64: '',
});

const call = (toolCallId: string, params: unknown): Item =>
  ({
    kind: 'tool_call',
    id: `n_${toolCallId}`,
    toolCallId,
    name: 'browser_type',
    label: 'Type',
    params,
    state: 'result',
  }) as unknown as Item;
const result = (toolCallId: string, element: string, name: string): Item =>
  ({
    kind: 'tool_result',
    id: `r_${toolCallId}`,
    toolCallId,
    ok: true,
    content: [],
    details: { element, target: { role: 'textbox', name } },
  }) as unknown as Item;

describe('recording captions and the latest task', () => {
  const say = (key: string, ...subs: string[]) => `${key}(${subs.join('|')})`;

  it('a frame whose call the thread holds gets its tool card’s line; others keep theirs', () => {
    const path = [
      call('c1', { ref: 'e1', text: 'grace' }),
      result('c1', 'textbox "Username"', 'Username'),
      call('c2', { ref: 'e2', text: '{{secret:a/password}}' }),
      result('c2', 'textbox "Password" [type=password]', 'Password'),
    ];
    const out = localizedCaptions(
      [
        frame('a', 'r', 'c1', 'x'),
        frame('b', 'r', 'c2', 'y'),
        frame('c', 'r', 'c9', 'Stored line'),
      ],
      path,
      say as never,
    );
    expect(out.map((f) => f.summary)).toEqual([
      'sum_type(grace|Username)',
      'sum_type(••••••|Password)',
      'Stored line',
    ]);
  });

  it('the latest task is the newest frame’s run; the canvas has even sides and a caption band', () => {
    const frames = [
      frame('a', 'r1', 'c1', ''),
      frame('b', 'r2', 'c2', ''),
      frame('c', 'r2', 'c3', ''),
    ];
    expect(latestTask(frames).map((f) => f.frameId)).toEqual(['b', 'c']);
    expect(latestTask([])).toEqual([]);
    expect(canvasSize(frames)).toEqual({ width: 400, height: 274 });
  });
});
