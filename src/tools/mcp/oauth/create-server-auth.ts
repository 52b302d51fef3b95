import type { FetchLike, McpLogger, McpOAuthHost, McpServerConfig } from '../types';
import { KeelOAuthProvider } from './provider';
import { McpServerAuth } from './server-auth';

/**
 * One server's OAuth from its settings and the host's sign-in support: the provider loads what
 * the credentials store holds for this URL (and deletes what it holds for another).
 */
export async function createServerAuth(
  config: McpServerConfig,
  host: McpOAuthHost,
  clientSecret: string | null,
  env: { fetch: FetchLike; log: McpLogger; now(): number; onChange(): void },
): Promise<McpServerAuth> {
  const oauth = config.oauth ?? {};
  const provider = await KeelOAuthProvider.load({
    serverId: config.id,
    url: config.url,
    store: host.store,
    redirectUrl: host.redirectUrl,
    clientName: host.clientName ?? 'Keel',
    ...(host.clientMetadataUrl ? { clientMetadataUrl: host.clientMetadataUrl } : {}),
    config: oauth,
    clientSecret,
    ...(host.privateKeyJwt ? { privateKeyJwt: host.privateKeyJwt } : {}),
    now: env.now,
  });
  return new McpServerAuth({
    serverId: config.id,
    url: config.url,
    provider,
    fetch: env.fetch,
    authorize: (url) => host.authorize(url, config.id),
    machine: oauth.grant === 'client_credentials',
    log: env.log,
    now: env.now,
    onChange: env.onChange,
  });
}
