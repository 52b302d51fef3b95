import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpSignInRequiredError } from '../errors';
import type { McpOAuthConfig } from '../types';
import { bindRecord, type McpAuthRecord, type McpAuthStore } from './auth-record';

/**
 * Keel's `OAuthClientProvider` for one server: the SDK's `auth()` does the protocol (discovery,
 * registration, PKCE, resource indicators, token requests, refresh); this class only keeps what
 * it produces in the credentials store and opens the authorization page when — and only when — a
 * sign-in was asked for (`authorizeWith`). Outside a sign-in, a flow that needs the user throws
 * `McpSignInRequiredError` instead of opening anything.
 */

/** Opens `url` in a user agent and resolves with the URL the authorization server redirected to. */
export type Authorize = (url: string) => Promise<string>;

export interface KeelOAuthProviderOptions {
  serverId: string;
  url: string;
  store: McpAuthStore;
  /** Where the authorization server sends the user back (the extension's chromiumapp.org URL). */
  redirectUrl: string;
  clientName: string;
  /** An https URL serving Keel's Client ID Metadata Document, if one is published. */
  clientMetadataUrl?: string;
  config: McpOAuthConfig;
  /** The pre-registered client's secret (or private key, with private_key_jwt). */
  clientSecret: string | null;
  /** Signs private_key_jwt client assertions; absent where no JWT library may be loaded. */
  privateKeyJwt?: (o: {
    clientId: string;
    privateKey: string;
    alg: string;
  }) => AddClientAuthentication;
  now(): number;
}

export class KeelOAuthProvider implements OAuthClientProvider {
  readonly addClientAuthentication?: AddClientAuthentication;
  private authorize: Authorize | null = null;
  private expectedState: string | null = null;
  private code: string | null = null;
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly o: KeelOAuthProviderOptions,
    private rec: McpAuthRecord,
  ) {
    const { config } = o;
    if (config.clientAuth === 'private_key_jwt') {
      if (!o.privateKeyJwt)
        throw new Error('private_key_jwt client authentication is not available here');
      if (!config.clientId || !o.clientSecret)
        throw new Error('private_key_jwt needs a client id and a private key');
      this.addClientAuthentication = o.privateKeyJwt({
        clientId: config.clientId,
        privateKey: o.clientSecret,
        alg: config.jwtAlgorithm ?? 'ES256',
      });
    }
  }

  /** Credentials stored for another URL are deleted: a token is bound to its server's URL. */
  static async load(o: KeelOAuthProviderOptions): Promise<KeelOAuthProvider> {
    const raw = await o.store.load(o.serverId);
    const rec = bindRecord(raw, o.url);
    if (raw && !rec.tokens && !rec.client && !rec.discovery) await o.store.clear(o.serverId);
    return new KeelOAuthProvider(o, rec);
  }

  get record(): Readonly<McpAuthRecord> {
    return this.rec;
  }

  /** Client credentials flows have no redirect: the SDK then fetches tokens directly. */
  get redirectUrl(): string | undefined {
    return this.o.config.grant === 'client_credentials' ? undefined : this.o.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.o.config.grant === 'client_credentials' ? undefined : this.o.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.o.config.scope;
    if (this.o.config.grant === 'client_credentials') {
      return {
        client_name: this.o.clientName,
        redirect_uris: [],
        grant_types: ['client_credentials'],
        ...(scope ? { scope } : {}),
      };
    }
    return {
      client_name: this.o.clientName,
      redirect_uris: [this.o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A browser extension cannot keep a secret: a public client, PKCE protects the code.
      token_endpoint_auth_method: 'none',
      ...(scope ? { scope } : {}),
    };
  }

  state(): string {
    this.expectedState = randomState();
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientAuth } = this.o.config;
    if (!clientId) return this.rec.client;
    // Pre-registered: what the SDK stamped for this very client id, else the configured one.
    if (this.rec.client?.client_id === clientId) return this.rec.client;
    const secret =
      clientAuth === 'private_key_jwt' ? undefined : (this.o.clientSecret ?? undefined);
    return {
      client_id: clientId,
      ...(secret ? { client_secret: secret } : {}),
      ...(clientAuth && clientAuth !== 'private_key_jwt'
        ? { token_endpoint_auth_method: clientAuth }
        : {}),
    };
  }

  saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    return this.update((r) => (r.client = info));
  }

  tokens(): OAuthTokens | undefined {
    return this.rec.tokens;
  }

  saveTokens(tokens: OAuthTokens): Promise<void> {
    const now = this.o.now();
    return this.update((r) => {
      r.tokens = tokens;
      if (tokens.expires_in) r.expiresAt = now + tokens.expires_in * 1000;
      else delete r.expiresAt;
      r.signedInAt ??= now;
    });
  }

  /** Put back the tokens held before a sign-in that failed or was cancelled. */
  restoreTokens(tokens: OAuthTokens, expiresAt: number | undefined): Promise<void> {
    return this.update((r) => {
      r.tokens = tokens;
      if (expiresAt) r.expiresAt = expiresAt;
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.authorize)
      throw new McpSignInRequiredError(
        this.o.serverId,
        `MCP server "${this.o.serverId}" needs you to sign in`,
      );
    const back = new URL(await this.authorize(authorizationUrl.toString()));
    const error = back.searchParams.get('error');
    if (error) {
      const desc = back.searchParams.get('error_description');
      throw new Error(
        `the authorization server refused the sign-in: ${clip(error)}${desc ? ` (${clip(desc)})` : ''}`,
      );
    }
    if (this.expectedState !== null && back.searchParams.get('state') !== this.expectedState) {
      throw new Error('the sign-in answer did not match the request (state mismatch); try again');
    }
    const code = back.searchParams.get('code');
    if (!code) throw new Error('the authorization server sent no authorization code');
    this.code = code;
  }

  saveCodeVerifier(codeVerifier: string): Promise<void> {
    return this.update((r) => (r.codeVerifier = codeVerifier));
  }

  codeVerifier(): string {
    if (!this.rec.codeVerifier)
      throw new Error('no sign-in is in progress (the PKCE verifier is missing)');
    return this.rec.codeVerifier;
  }

  invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    return this.update((r) => {
      if (scope === 'all' || scope === 'client') delete r.client;
      if (scope === 'all' || scope === 'tokens') {
        delete r.tokens;
        delete r.expiresAt;
        delete r.signedInAt;
      }
      if (scope === 'all' || scope === 'verifier') delete r.codeVerifier;
      if (scope === 'all' || scope === 'discovery') delete r.discovery;
    });
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.o.config.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this.update((r) => (r.discovery = state));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.rec.discovery;
  }

  /** Remember the last challenge (resource metadata URL, scope) for the next sign-in. */
  noteChallenge(resourceMetadataUrl: string | undefined, scope: string | undefined): Promise<void> {
    if (resourceMetadataUrl === this.rec.resourceMetadataUrl && scope === this.rec.challengeScope)
      return this.writes;
    return this.update((r) => {
      if (resourceMetadataUrl) r.resourceMetadataUrl = resourceMetadataUrl;
      if (scope) r.challengeScope = scope;
    });
  }

  noteSignIn(scope: string | undefined): Promise<void> {
    const now = this.o.now();
    return this.update((r) => {
      r.signedInAt = now;
      if (scope) r.scope = scope;
      else delete r.scope;
      delete r.codeVerifier;
    });
  }

  /**
   * Run `fn` (the SDK's `auth()` calls) with the user agent available; the authorization code it
   * captures is returned by `takeCode`. Only one sign-in per server at a time (the caller's job).
   */
  async withAuthorize<T>(authorize: Authorize, fn: () => Promise<T>): Promise<T> {
    this.authorize = authorize;
    this.code = null;
    try {
      return await fn();
    } finally {
      this.authorize = null;
      this.expectedState = null;
    }
  }

  takeCode(): string | null {
    const code = this.code;
    this.code = null;
    return code;
  }

  /** Forget everything (sign out); the stored secret is removed. */
  async clear(): Promise<void> {
    this.rec = { url: this.o.url };
    this.writes = this.writes.then(() => this.o.store.clear(this.o.serverId));
    await this.writes;
  }

  private update(change: (r: McpAuthRecord) => void): Promise<void> {
    change(this.rec);
    const snapshot = JSON.stringify(this.rec);
    this.writes = this.writes
      .catch(() => undefined)
      .then(() => this.o.store.save(this.o.serverId, snapshot));
    return this.writes;
  }
}

function randomState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
