import type { NormalizedStopReason, StreamEvent } from './types';

/** A `stop` event; `providerReason` (the API's own word) is set only when the API sent one. */
export function stopEvent(
  reason: NormalizedStopReason,
  providerReason?: string | null,
): StreamEvent {
  return providerReason ? { type: 'stop', reason, providerReason } : { type: 'stop', reason };
}

export const isTerminalEvent = (event: StreamEvent): boolean =>
  event.type === 'stop' || event.type === 'error';
