import { createProvider, providerModelInfo } from '../../providers/create-provider';
import type { ProviderDeps } from '../../providers/provider-stream';
import type { ModelInfo, Provider, ProviderResolver } from '../../providers/types';
import type { Store } from '../../store/store';

/**
 * Resolves provider ids from settings. The API key is decrypted at call time and handed only to
 * the SDK client of the Provider built for that call, so a key rotated in settings is picked up
 * by the next model call of a running (or resumed) run — same credential reference, new value.
 */
export class SettingsProviderResolver implements ProviderResolver {
  /**
   * Built providers by id, valid while neither the settings revision nor the stored credential
   * changes, so a rotated key is still picked up by the next call — without decrypting the key and
   * building an SDK client on every model call.
   */
  private readonly cache = new Map<string, { version: string; provider: Provider }>();

  constructor(
    private readonly store: Store,
    private readonly deps: ProviderDeps = {},
  ) {}

  async resolve(providerId: string): Promise<Provider | null> {
    const settings = await this.store.settings.get();
    const p = settings.providers.find((x) => x.id === providerId);
    if (!p) return null;
    const stamp = p.credentialId ? await this.store.credentials.stamp(p.credentialId) : 0;
    const version = `${settings.revision}:${stamp}`;
    const cached = this.cache.get(providerId);
    if (cached?.version === version) return cached.provider;
    const apiKey = p.credentialId
      ? ((await this.store.credentials.getSecret(p.credentialId)) ?? '')
      : '';
    const provider = createProvider(
      {
        id: p.id,
        kind: p.kind,
        ...(p.baseURL ? { baseURL: p.baseURL } : {}),
        apiKey,
        ...(p.models ? { models: p.models } : {}),
      },
      this.deps,
    );
    this.cache.set(providerId, { version, provider });
    return provider;
  }

  async modelInfo(providerId: string, model: string): Promise<ModelInfo> {
    const settings = await this.store.settings.get();
    const p = settings.providers.find((x) => x.id === providerId);
    return providerModelInfo({ models: p?.models ?? [] }, model);
  }

  async transportIdentity(
    providerId: string,
  ): Promise<{ kind: string; baseURL?: string; credentialRef?: string } | null> {
    const settings = await this.store.settings.get();
    const p = settings.providers.find((x) => x.id === providerId);
    if (!p) return null;
    return {
      kind: p.kind,
      ...(p.baseURL ? { baseURL: p.baseURL } : {}),
      ...(p.credentialId ? { credentialRef: p.credentialId } : {}),
    };
  }
}
