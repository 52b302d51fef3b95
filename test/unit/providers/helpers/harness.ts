import { createProvider } from '../../../../src/providers/create-provider';
import type { ProviderDeps } from '../../../../src/providers/provider-stream';
import type { Sleep } from '../../../../src/providers/retry';
import type { Provider, ProviderRequest } from '../../../../src/providers/types';
import type { ProviderKind } from '../../../../src/protocol';
import type { MockServer } from './mock-server';

export const TEST_API_KEY = 'sk-test-0123456789abcdefSECRET';

/** A sleep that records the delays asked for and returns at once. */
export function recordingSleep(): Sleep & { delays: number[] } {
  const delays: number[] = [];
  const sleep: Sleep = async (ms) => {
    delays.push(ms);
  };
  return Object.assign(sleep, { delays });
}

export function baseURLFor(kind: ProviderKind, server: MockServer): string {
  return kind === 'anthropic' ? server.origin : `${server.origin}/v1`;
}

export function providerFor(
  kind: ProviderKind,
  server: MockServer,
  options: { apiKey?: string; deps?: ProviderDeps } = {},
): Provider {
  return createProvider(
    {
      id: `test-${kind}`,
      kind,
      baseURL: baseURLFor(kind, server),
      apiKey: options.apiKey ?? TEST_API_KEY,
    },
    { sleep: recordingSleep(), random: () => 0.5, ...options.deps },
  );
}

export function testRequest(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: 'test-model',
    system: 'You are a test.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}
