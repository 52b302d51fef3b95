/**
 * A recording's captions in the panel's language: each frame's call, found in the thread the
 * panel holds, gets the same one line as its tool card (summaries/tool-summary.ts). A frame whose
 * call the panel does not hold (another branch, a compacted thread) keeps the line stored with
 * it, which the engine wrote in English with secrets already out. Pure.
 */
import type { Item } from '../../src/protocol';
import type { MessageKey } from '../i18n';
import { toolSummary } from '../summaries/tool-summary';
import type { RecordingFrame } from './recording-export';

export function localizedCaptions(
  frames: readonly RecordingFrame[],
  path: readonly Item[],
  say: (key: MessageKey, ...subs: string[]) => string,
): RecordingFrame[] {
  const calls = new Map<string, Extract<Item, { kind: 'tool_call' }>>();
  const results = new Map<string, Extract<Item, { kind: 'tool_result' }>>();
  for (const item of path) {
    if (item.kind === 'tool_call') calls.set(item.toolCallId, item);
    else if (item.kind === 'tool_result') results.set(item.toolCallId, item);
  }
  return frames.map((f) => {
    const call = calls.get(f.toolCallId);
    const line = call ? toolSummary(call, results.get(f.toolCallId)) : null;
    return line ? { ...f, summary: say(line.key, ...line.subs) } : f;
  });
}
