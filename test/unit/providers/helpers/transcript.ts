import type { StreamEvent } from '../../../../src/providers/types';

/**
 * A stream with its deltas coalesced: consecutive text (or thinking) deltas become one entry, and
 * consecutive argument fragments of the same tool call become one `args` entry. Everything else —
 * starts, ends, thinking blocks, usage, stop, error — is kept exactly, in order.
 */
export type TranscriptEntry =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'args'; index: number; args: string }
  | Exclude<StreamEvent, { type: 'text_delta' | 'thinking_delta' | 'tool_call_delta' }>;

export function transcript(events: readonly StreamEvent[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === 'text_delta') {
      if (last?.type === 'text') last.text += event.text;
      else out.push({ type: 'text', text: event.text });
    } else if (event.type === 'thinking_delta') {
      if (last?.type === 'thinking') last.text += event.text;
      else out.push({ type: 'thinking', text: event.text });
    } else if (event.type === 'tool_call_delta') {
      if (last?.type === 'args' && last.index === event.index) last.args += event.argsFragment;
      else out.push({ type: 'args', index: event.index, args: event.argsFragment });
    } else {
      out.push(event);
    }
  }
  return out;
}

export async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
