import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { SettingsProviderResolver } from '../../../src/engine/env/provider-resolver';
import { Store } from '../../../src/store/store';
import { defaultSettings } from '../../../src/store/settings-repo';

const sse = (chunks: unknown[]) =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

describe('SettingsProviderResolver', () => {
  it('decrypts the key at call time: a rotated key behind the same reference is used by the next call', async () => {
    const store = Store.open(`resolver-${Math.random()}`);
    await store.settings.put({
      ...defaultSettings(),
      providers: [
        { id: 'o', kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', credentialId: 'provider:o' },
      ],
    });
    await store.credentials.setSecret('provider:o', 'sk-first', 1);
    const seen: string[] = [];
    const fetchImpl = async (_url: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('authorization') ?? '');
      const body = sse([
        {
          id: 'x',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }],
        },
      ]);
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const resolver = new SettingsProviderResolver(store, { fetch: fetchImpl as typeof fetch });
    const drain = async () => {
      const p = (await resolver.resolve('o'))!;
      const out = [];
      for await (const ev of p.stream({
        model: 'gpt-4o-mini',
        system: 's',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }],
        tools: [],
        signal: new AbortController().signal,
      }))
        out.push(ev.type);
      return out;
    };
    expect(await drain()).toContain('stop');
    await store.credentials.setSecret('provider:o', 'sk-rotated', 2);
    await drain();
    expect(seen).toEqual(['Bearer sk-first', 'Bearer sk-rotated']);
    expect(await resolver.transportIdentity('o')).toEqual({
      kind: 'openai',
      baseURL: 'http://127.0.0.1:9/v1',
      credentialRef: 'provider:o',
    });
    expect(await resolver.resolve('missing')).toBeNull();
  });
});
