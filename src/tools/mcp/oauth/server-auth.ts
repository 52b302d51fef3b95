import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpAuthRefusedError, McpSignInRequiredError, type SignInChallenge } from '../errors';
import type { FetchLike, McpLogger } from '../types';
import { summarize, type McpAuthSummary } from './auth-record';
import { decideChallenge } from './challenge';
import type { Authorize, KeelOAuthProvider } from './provider';

/**
 * OAuth for one server, between the MCP transport and the network. `fetch` adds the access
 * token to every request; when the server refuses it (401) the token is renewed without the user
 * when that is possible (refresh token, client credentials) and the request is sent again once;
 * otherwise, and for a 403 asking for more scope, the request fails with `McpSignInRequiredError`
 * — the server refused it before running anything, so the caller may send it again after
 * `signIn`. `signIn` is the only path that opens the authorization page.
 */

export interface McpServerAuthOptions {
  serverId: string;
  url: string;
  provider: KeelOAuthProvider;
  /** The network, without any authorization added. */
  fetch: FetchLike;
  /** Opens the authorization page (launchWebAuthFlow in the extension); absent: no sign-in here. */
  authorize?: Authorize;
  /** Client credentials: no user, tokens are fetched directly. */
  machine: boolean;
  log: McpLogger;
  now(): number;
  /** Signed in, renewed, signed out. */
  onChange(): void;
}

/** Renew this long before the server's stated expiry, so a request does not race it. */
const EXPIRY_MARGIN_MS = 30_000;
const REVOKE_TIMEOUT_MS = 5_000;

export class McpServerAuth {
  readonly fetch: FetchLike;
  private renewing: Promise<boolean> | null = null;
  private signingIn: Promise<void> | null = null;

  constructor(private readonly o: McpServerAuthOptions) {
    this.fetch = (input, init) => this.authorizedFetch(input, init);
  }

  summary(): McpAuthSummary {
    return summarize(this.o.provider.record);
  }

  /**
   * Sign in (again), asking for `challenge.scope` (or the last challenge's, or none). Resolves
   * once tokens are stored. A failed or cancelled sign-in keeps the tokens held before.
   */
  signIn(challenge: SignInChallenge = {}): Promise<void> {
    this.signingIn ??= this.runSignIn(challenge).finally(() => (this.signingIn = null));
    return this.signingIn;
  }

  /** Revoke the tokens where the server offers revocation (RFC 7009, best effort) and forget them. */
  async signOut(): Promise<void> {
    const rec = this.o.provider.record;
    // OpenID metadata has no revocation_endpoint in the SDK's type; RFC 8414 metadata may.
    const metadata = rec.discovery?.authorizationServerMetadata as
      | { revocation_endpoint?: unknown }
      | undefined;
    const endpoint =
      typeof metadata?.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
    const client = rec.client;
    if (endpoint && client && rec.tokens) {
      const tokens = [rec.tokens.refresh_token, rec.tokens.access_token].filter((t): t is string =>
        Boolean(t),
      );
      for (const token of tokens)
        await this.revoke(
          endpoint,
          token,
          client.client_id,
          'client_secret' in client ? client.client_secret : undefined,
        );
    }
    await this.o.provider.clear();
    this.o.onChange();
  }

  private async runSignIn(challenge: SignInChallenge): Promise<void> {
    const { provider, url } = this.o;
    const rec = provider.record;
    const scope = challenge.scope ?? rec.challengeScope ?? rec.scope;
    const meta = challenge.resourceMetadataUrl ?? rec.resourceMetadataUrl;
    const options = {
      serverUrl: url,
      fetchFn: this.o.fetch,
      ...(scope ? { scope } : {}),
      ...(meta ? { resourceMetadataUrl: new URL(meta) } : {}),
    };
    if (this.o.machine) {
      if ((await auth(provider, options)) !== 'AUTHORIZED')
        throw new Error('the authorization server issued no token');
      await provider.noteSignIn(scope);
      this.o.onChange();
      return;
    }
    const authorize = this.o.authorize;
    if (!authorize) throw new Error('signing in is not available here');
    const before = rec.tokens ? { tokens: rec.tokens, expiresAt: rec.expiresAt } : null;
    // Without a refresh token on file, auth() asks the user instead of refreshing the old grant.
    await provider.invalidateCredentials('tokens');
    try {
      await provider.withAuthorize(authorize, async () => {
        let result = await auth(provider, options);
        if (result === 'REDIRECT') {
          const code = provider.takeCode();
          if (!code) throw new Error('the sign-in did not complete');
          result = await auth(provider, { ...options, authorizationCode: code });
        }
        if (result !== 'AUTHORIZED') throw new Error('the sign-in did not complete');
      });
      await provider.noteSignIn(scope);
      this.o.log('info', 'signed in to an MCP server', { serverId: this.o.serverId });
    } catch (err) {
      if (before) await provider.restoreTokens(before.tokens, before.expiresAt);
      throw err;
    } finally {
      this.o.onChange();
    }
  }

  private async authorizedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const { provider } = this.o;
    const rec = provider.record;
    if (
      rec.tokens &&
      rec.expiresAt &&
      this.o.now() > rec.expiresAt - EXPIRY_MARGIN_MS &&
      this.canRenew()
    ) {
      await this.renew({});
    }
    let res = await this.send(input, init);
    if (res.status !== 401 && res.status !== 403) return res;
    let decision = this.decide(res);
    if (decision.kind === 'renew') {
      await provider.noteChallenge(decision.resourceMetadataUrl, decision.scope);
      if (!(await this.renew(decision))) {
        await res.body?.cancel().catch(() => undefined);
        throw new McpSignInRequiredError(
          this.o.serverId,
          this.needsSignIn(),
          challengeOf(decision),
        );
      }
      await res.body?.cancel().catch(() => undefined);
      res = await this.send(input, init);
      if (res.status !== 401 && res.status !== 403) return res;
      decision = this.decide(res);
      // A token renewed a moment ago and refused again: only the user can fix it.
      if (decision.kind === 'renew')
        throw new McpSignInRequiredError(
          this.o.serverId,
          this.needsSignIn(),
          challengeOf(decision),
        );
    }
    if (decision.kind === 'none') return res;
    await res.body?.cancel().catch(() => undefined);
    if (decision.kind === 'refused')
      throw new McpAuthRefusedError(`MCP server "${this.o.serverId}": ${decision.reason}`);
    await provider.noteChallenge(decision.resourceMetadataUrl, decision.scope);
    // The scope comes from the server: shown clipped, never as more than a list of words.
    const scope = clipScope(decision.scope);
    if (this.o.machine)
      throw new McpAuthRefusedError(
        `MCP server "${this.o.serverId}" needs more access (${scope}) than the client credentials grant`,
      );
    throw new McpSignInRequiredError(
      this.o.serverId,
      `MCP server "${this.o.serverId}" needs you to sign in again to allow more access (${scope})`,
      challengeOf(decision),
    );
  }

  private send(input: string | URL, init?: RequestInit): Promise<Response> {
    const headers = new Headers(init?.headers);
    const token = this.o.provider.tokens()?.access_token;
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return this.o.fetch(input, { ...init, headers });
  }

  private decide(res: Response) {
    const p = extractWWWAuthenticateParams(res);
    const held = this.o.provider.record;
    return decideChallenge(
      {
        status: res.status,
        ...(p.error ? { error: p.error } : {}),
        ...(p.scope ? { scope: p.scope } : {}),
        ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl.toString() } : {}),
      },
      [held.scope, held.tokens?.scope].filter(Boolean).join(' ') || undefined,
    );
  }

  private canRenew(): boolean {
    return this.o.machine || Boolean(this.o.provider.record.tokens?.refresh_token);
  }

  /** Refresh (or fetch client-credentials tokens) without the user; concurrent 401s share one. */
  private renew(c: SignInChallenge): Promise<boolean> {
    if (!this.canRenew()) return Promise.resolve(false);
    this.renewing ??= (async () => {
      const rec = this.o.provider.record;
      const scope = this.o.machine ? (c.scope ?? rec.scope) : undefined;
      const meta = c.resourceMetadataUrl ?? rec.resourceMetadataUrl;
      try {
        const result = await auth(this.o.provider, {
          serverUrl: this.o.url,
          fetchFn: this.o.fetch,
          ...(scope ? { scope } : {}),
          ...(meta ? { resourceMetadataUrl: new URL(meta) } : {}),
        });
        if (result === 'AUTHORIZED' && this.o.machine) await this.o.provider.noteSignIn(scope);
        return result === 'AUTHORIZED';
      } catch (err) {
        if (err instanceof McpSignInRequiredError) return false;
        this.o.log('warn', 'could not renew an MCP access token', {
          serverId: this.o.serverId,
          error: err instanceof Error ? err.message : String(err),
        });
        return false;
      } finally {
        this.o.onChange();
      }
    })().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private needsSignIn(): string {
    return `MCP server "${this.o.serverId}" needs you to sign in`;
  }

  private async revoke(
    endpoint: string,
    token: string,
    clientId: string,
    secret: string | undefined,
  ): Promise<void> {
    const body = new URLSearchParams({ token, client_id: clientId });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (secret)
      headers.authorization = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`)}`;
    try {
      const res = await this.o.fetch(endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
      });
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      this.o.log('info', 'token revocation failed (the tokens are forgotten anyway)', {
        serverId: this.o.serverId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

function clipScope(scope: string): string {
  return scope.length > 200 ? `${scope.slice(0, 200)}…` : scope;
}

function challengeOf(d: { scope?: string; resourceMetadataUrl?: string }): SignInChallenge {
  return {
    ...(d.scope ? { scope: d.scope } : {}),
    ...(d.resourceMetadataUrl ? { resourceMetadataUrl: d.resourceMetadataUrl } : {}),
  };
}
