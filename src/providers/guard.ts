import {
  abortedError,
  errorEvent,
  providerError,
  scrubError,
  unknownFailureToError,
} from './errors';
import type { StreamEvent } from './types';

/**
 * The last line of the `Provider.stream` contract: whatever happens inside, the caller sees events
 * followed by exactly one terminal event, nothing after it, no exception, and no secret in any error
 * message. Every provider's stream passes through here.
 */
export async function* guardStream(
  source: AsyncIterable<StreamEvent>,
  options: { signal: AbortSignal; secrets?: readonly string[] },
): AsyncGenerator<StreamEvent> {
  const secrets = options.secrets ?? [];
  try {
    for await (const event of source) {
      if (event.type === 'error') {
        yield errorEvent(scrubError(event.error, secrets));
        return;
      }
      yield event;
      if (event.type === 'stop') return;
    }
    yield errorEvent(
      options.signal.aborted
        ? abortedError()
        : providerError('stream', 'The stream ended without a stop reason.', { retryable: false }),
    );
  } catch (err) {
    const error = options.signal.aborted ? abortedError() : unknownFailureToError(err);
    yield errorEvent(scrubError(error, secrets));
  }
}
