import { abortedError, errorEvent, providerError } from './errors';
import { isTerminalEvent as isTerminal } from './events';
import type { ProviderError, StreamEvent } from './types';

/**
 * One API's raw stream → normalized events. Pure and synchronous, so each API's mapping is tested
 * without a network. Normalizers tolerate the oddities seen in real streams; an event too broken to
 * read (it throws) ends the attempt as a malformed stream rather than as an exception.
 */
export interface StreamNormalizer<Raw> {
  push(event: Raw): StreamEvent[];
  /** The raw stream ended cleanly: the remaining events, ending with a terminal one. */
  end(): StreamEvent[];
}

/**
 * One attempt: open the SDK stream, feed it through the normalizer, and turn every failure into a
 * terminal `error` (mapped by the adapter's `toError`). Never throws.
 */
export async function* runAttempt<Raw>(args: {
  open: () => Promise<AsyncIterable<Raw>>;
  normalizer: StreamNormalizer<Raw>;
  signal: AbortSignal;
  toError: (err: unknown) => ProviderError;
}): AsyncGenerator<StreamEvent> {
  const { normalizer, signal } = args;
  try {
    const raw = await args.open();
    for await (const event of raw) {
      let normalized: StreamEvent[];
      try {
        normalized = normalizer.push(event);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        yield errorEvent(
          providerError('stream', `Malformed stream event: ${detail}`, { retryable: false }),
        );
        return;
      }
      for (const out of normalized) {
        yield out;
        if (isTerminal(out)) return;
      }
    }
    // Both SDKs end the iteration silently when the request is aborted mid-stream.
    if (signal.aborted) {
      yield errorEvent(abortedError());
      return;
    }
    for (const out of normalizer.end()) {
      yield out;
      if (isTerminal(out)) return;
    }
  } catch (err) {
    yield errorEvent(signal.aborted ? abortedError() : args.toError(err));
  }
}
