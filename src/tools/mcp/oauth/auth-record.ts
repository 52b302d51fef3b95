import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * What Keel keeps per server to stay signed in: the registered client, the tokens, the PKCE
 * verifier of a sign-in in progress and the discovery results. It is one secret in the
 * credentials store (never in settings, events, logs or exports), and it is bound to the server
 * URL it was obtained for: read back for another URL it is void (`bindRecord`).
 */
export interface McpAuthRecord {
  /** The server URL these credentials belong to. */
  url: string;
  /** As the SDK saved it (it stamps the issuer; stored unchanged). */
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms epoch), from `expires_in` at the time it was saved. */
  expiresAt?: number;
  /** The scope asked for at the last sign-in (the server may grant less; `tokens.scope` says). */
  scope?: string;
  codeVerifier?: string;
  discovery?: OAuthDiscoveryState;
  /** From the server's last `WWW-Authenticate` challenge, so a later sign-in starts from it. */
  resourceMetadataUrl?: string;
  challengeScope?: string;
  signedInAt?: number;
}

/** The secret store seen by the MCP client: one opaque string per server. */
export interface McpAuthStore {
  load(serverId: string): Promise<string | null>;
  save(serverId: string, value: string): Promise<void>;
  clear(serverId: string): Promise<void>;
}

/** The record for `url`, or a fresh one when nothing is stored, it is unreadable, or it is another URL's. */
export function bindRecord(raw: string | null, url: string): McpAuthRecord {
  if (!raw) return { url };
  try {
    const rec = JSON.parse(raw) as McpAuthRecord;
    return rec && typeof rec === 'object' && rec.url === url ? rec : { url };
  } catch {
    return { url };
  }
}

/** Non-secret facts for the settings page and the panel. */
export interface McpAuthSummary {
  signedIn: boolean;
  /** Who signed in, when the server said (an OpenID `id_token`'s email / username / name). */
  account?: string;
  /** When the access token expires (ms epoch), if the server said. */
  expiresAt?: number;
  /** A refresh token is held: an expired access token is renewed without the user. */
  renewable?: boolean;
  scope?: string;
  signedInAt?: number;
  /** A sign-in from settings is in progress. */
  signingIn?: boolean;
  /** Why the last sign-in from settings failed. */
  error?: string;
}

export function summarize(rec: McpAuthRecord): McpAuthSummary {
  if (!rec.tokens?.access_token) return { signedIn: false };
  const scope = rec.tokens.scope ?? rec.scope;
  const account = accountOf(rec.tokens.id_token);
  return {
    signedIn: true,
    ...(account ? { account } : {}),
    ...(rec.expiresAt ? { expiresAt: rec.expiresAt } : {}),
    ...(rec.tokens.refresh_token ? { renewable: true } : {}),
    ...(scope ? { scope } : {}),
    ...(rec.signedInAt ? { signedInAt: rec.signedInAt } : {}),
  };
}

/**
 * The display name in an OpenID `id_token` (its payload read without verifying the signature:
 * it is only shown to the user, never trusted for a decision).
 */
export function accountOf(idToken: string | undefined): string | undefined {
  const payload = idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<
      string,
      unknown
    >;
    const name = [claims.email, claims.preferred_username, claims.name].find(
      (v): v is string => typeof v === 'string' && v.length > 0,
    );
    return name ? name.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

/** An in-memory store (tests, the conformance runner). */
export function memoryAuthStore(): McpAuthStore {
  const data = new Map<string, string>();
  return {
    load: async (id) => data.get(id) ?? null,
    save: async (id, value) => void data.set(id, value),
    clear: async (id) => void data.delete(id),
  };
}
