import { errorEvent, providerError } from './errors';
import { guardStream } from './guard';
import { streamWithRetry, type Random, type RetryPolicy, type Sleep } from './retry';
import { runAttempt, type StreamNormalizer } from './run-attempt';
import type { ProviderError, ProviderRequest, StreamEvent } from './types';

/** Effects a provider needs, injected so tests run against a local server, instantly, deterministically. */
export interface ProviderDeps {
  /** Defaults to the global fetch (the service worker's). */
  fetch?: typeof fetch;
  sleep?: Sleep;
  random?: Random;
  retry?: Partial<RetryPolicy>;
}

/** The global fetch, called unbound: some runtimes throw "Illegal invocation" on a detached fetch. */
export const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/**
 * The shape every SDK adapter shares: build the body once, then attempts (with retries) of
 * open → normalize, all behind the guard that enforces the stream contract and scrubs secrets.
 */
export function providerStream<Body, Raw>(args: {
  req: ProviderRequest;
  build: () => Body;
  open: (body: Body, signal: AbortSignal) => Promise<AsyncIterable<Raw>>;
  normalizer: () => StreamNormalizer<Raw>;
  toError: (err: unknown) => ProviderError;
  secrets: readonly string[];
  deps: ProviderDeps;
}): AsyncIterable<StreamEvent> {
  const { req, deps } = args;
  const signal = req.signal;

  async function* attempts(): AsyncGenerator<StreamEvent> {
    let body: Body;
    try {
      body = args.build();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      yield errorEvent(providerError('bad_request', `Could not build the request: ${message}`));
      return;
    }
    yield* streamWithRetry(
      () =>
        runAttempt({
          open: () => args.open(body, signal),
          normalizer: args.normalizer(),
          signal,
          toError: args.toError,
        }),
      { signal, sleep: deps.sleep, random: deps.random, policy: deps.retry },
    );
  }

  return guardStream(attempts(), { signal, secrets: args.secrets });
}
