import { afterEach, describe, expect, it } from 'vitest';
import { decideChallenge, scopeSet, unionScopes } from '../../../src/tools/mcp/oauth/challenge';
import {
  accountOf,
  bindRecord,
  memoryAuthStore,
  type McpAuthStore,
} from '../../../src/tools/mcp/oauth/auth-record';
import { isSignInPayload } from '../../../src/tools/mcp/sign-in';
import { afterFailedCall } from '../../../src/tools/mcp/resend-policy';
import { TestOAuthServer } from '../../fixtures/mcp/oauth-server';
import { ScriptedMcpServer } from '../../fixtures/mcp/scripted-server';
import { call, ctx, harness, mcpNames, textOf, until, type Harness } from './helpers';

/** A seeded generator (mulberry32), so a failing case can be replayed from the printed seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('decideChallenge (scope step-up and its limit)', () => {
  it('steps up exactly when the challenge names a scope not held, asking for the union', () => {
    const seed = Number(process.env.SEED ?? Date.now() % 100_000);
    const rand = rng(seed);
    const pool = ['read', 'write', 'admin', 'mcp:basic', 'offline_access'];
    const pick = () => pool.filter(() => rand() < 0.4).join(' ');
    for (let i = 0; i < 500; i++) {
      const held = pick();
      const wanted = pick();
      const d = decideChallenge(
        { status: 403, error: 'insufficient_scope', scope: wanted },
        held || undefined,
      );
      const missing = [...scopeSet(wanted)].filter((s) => !scopeSet(held).has(s));
      const ctxt = `seed ${seed}, held "${held}", wanted "${wanted}"`;
      if (missing.length > 0) {
        expect(d.kind, ctxt).toBe('step_up');
        const asked = scopeSet(d.kind === 'step_up' ? d.scope : '');
        for (const s of [...scopeSet(held), ...scopeSet(wanted)])
          expect(asked.has(s), ctxt).toBe(true);
      } else expect(d.kind, ctxt).toBe('refused');
    }
  });

  it('401 renews; 403 without insufficient_scope is refused; other statuses are not challenges', () => {
    expect(
      decideChallenge({ status: 401, scope: 'a', resourceMetadataUrl: 'https://x/prm' }, undefined),
    ).toEqual({ kind: 'renew', scope: 'a', resourceMetadataUrl: 'https://x/prm' });
    expect(decideChallenge({ status: 403 }, 'a').kind).toBe('refused');
    expect(decideChallenge({ status: 404 }, 'a').kind).toBe('none');
    expect(unionScopes('a b', undefined, 'b c')).toBe('a b c');
  });
});

describe('accountOf', () => {
  it('shows the id_token email, username or name; anything unreadable shows nothing', () => {
    const jwt = (claims: object) =>
      `h.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
    expect(accountOf(jwt({ sub: '1', email: 'ada@example.com', name: 'Ada' }))).toBe(
      'ada@example.com',
    );
    expect(accountOf(jwt({ sub: '1', preferred_username: 'ada' }))).toBe('ada');
    expect(accountOf(jwt({ sub: '1' }))).toBeUndefined();
    expect(accountOf('not-a-jwt')).toBeUndefined();
    expect(accountOf('a.%%%.b')).toBeUndefined();
    expect(accountOf(undefined)).toBeUndefined();
  });
});

describe('bindRecord', () => {
  it('a record stored for another URL (or unreadable) is void', () => {
    const rec = JSON.stringify({
      url: 'https://a.example/mcp',
      tokens: { access_token: 'x', token_type: 'Bearer' },
    });
    expect(bindRecord(rec, 'https://a.example/mcp').tokens?.access_token).toBe('x');
    expect(bindRecord(rec, 'https://b.example/mcp')).toEqual({ url: 'https://b.example/mcp' });
    expect(bindRecord('{not json', 'https://a.example/mcp')).toEqual({
      url: 'https://a.example/mcp',
    });
  });
});

describe('OAuth sign-in through the manager (local authorization server + protected MCP server)', () => {
  let as: TestOAuthServer | undefined;
  let rs: ScriptedMcpServer | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.manager.close();
    await rs?.stop();
    await as?.stop();
    h = rs = as = undefined;
  });

  /** `writeScope`: tools/call of note-add needs it (403 insufficient_scope otherwise). */
  async function setup(opts: { writeScope?: string; store?: McpAuthStore } = {}) {
    const server = await TestOAuthServer.start({ defaultScope: 'read' });
    as = server;
    rs = await ScriptedMcpServer.start({
      auth: {
        authorizationServer: server.url,
        scopesSupported: ['read'],
        check: (authorization, method) => {
          const t = server.verify(authorization);
          if (!t) return { status: 401 };
          if (opts.writeScope && method === 'tools/call' && !scopeSet(t.scope).has(opts.writeScope))
            return { status: 403, scope: `read ${opts.writeScope}` };
          return null;
        },
      },
    });
    const store = opts.store ?? memoryAuthStore();
    let opened = 0;
    h = harness({
      oauth: {
        store,
        redirectUrl: 'https://keel-test.chromiumapp.org/',
        // No user: the test server approves at once; take its redirect without following it.
        authorize: async (url) => {
          opened++;
          const res = await fetch(url, { redirect: 'manual' });
          return new URL(res.headers.get('location') ?? '', url).toString();
        },
      },
    });
    return { store, opened: () => opened };
  }

  const secretsIn = (text: string) => [...as!.tokens.keys()].filter((t) => text.includes(t));

  it('needs sign-in, signs in with PKCE and a resource indicator, refreshes an expired token, signs out with revocation', async () => {
    const { store, opened } = await setup();
    await h!.manager.sync([{ id: 'docs', url: rs!.url, enabled: true }]);
    expect(h!.manager.status()[0]).toMatchObject({
      state: 'needs_sign_in',
      auth: { signedIn: false },
    });
    expect(opened()).toBe(0); // nothing opens without the user asking

    await h!.manager.signIn('docs');
    const status = h!.manager.status()[0];
    expect(status).toMatchObject({
      state: 'connected',
      auth: { signedIn: true, renewable: true, scope: 'read' },
    });
    expect(status.auth?.expiresAt).toBeGreaterThan(Date.now());
    const authorize = as!.log.find((l) => l.path === '/authorize')!.params;
    expect(authorize).toMatchObject({
      code_challenge_method: 'S256',
      resource: rs!.url,
      scope: 'read',
    });
    expect(textOf(await call(h!.registry, 'mcp__docs__note-add', { note: 'one' }))).toBe(
      'noted (1)',
    );

    // An expired access token is refreshed without the user, and the call runs once.
    as!.expireAccessTokens();
    expect(textOf(await call(h!.registry, 'mcp__docs__note-list', {}))).toBe('notes: ["one"]');
    expect(
      as!.log.some((l) => l.path === '/token' && l.params.grant_type === 'refresh_token'),
    ).toBe(true);
    expect(opened()).toBe(1);

    // Tokens live in the store only: never in logs or status.
    expect(secretsIn(JSON.stringify(h!.logs) + JSON.stringify(h!.manager.status()))).toEqual([]);
    expect(secretsIn((await store.load('docs')) ?? '').length).toBeGreaterThan(0);

    await h!.manager.signOut('docs');
    expect(as!.count('/revoke')).toBeGreaterThan(0);
    expect([...as!.tokens.values()].filter((t) => !t.revoked && t.expiresAt > Date.now())).toEqual(
      [],
    );
    await until(
      () => h!.manager.status()[0].state === 'needs_sign_in',
      5_000,
      'needs_sign_in after sign-out',
    );
    // What may remain is the server's last challenge (where its metadata is), nothing secret.
    const after = JSON.parse((await store.load('docs')) ?? '{}') as Record<string, unknown>;
    expect(
      Object.keys(after).filter(
        (k) => !['url', 'resourceMetadataUrl', 'challengeScope'].includes(k),
      ),
    ).toEqual([]);
  });

  it('a call refused for more scope pauses as "sign in to continue"; yes signs in again and the call runs once, no ends it', async () => {
    const { opened } = await setup({ writeScope: 'write' });
    await h!.manager.sync([{ id: 'docs', url: rs!.url, enabled: true, label: 'Docs' }]);
    await h!.manager.signIn('docs');
    expect(mcpNames(h!.registry)).toContain('mcp__docs__note-add');

    const asked: unknown[] = [];
    const no = ctx({ requestInteraction: async (_k, p) => (asked.push(p), { action: 'decline' }) });
    await expect(call(h!.registry, 'mcp__docs__note-add', { note: 'x' }, no)).rejects.toThrow(
      /did not sign in .* "note-add" did not run/,
    );
    expect(isSignInPayload(asked[0])).toBe(true);
    expect(asked[0]).toMatchObject({
      message: expect.stringMatching(/^Sign in to Docs to continue/),
      signIn: { serverId: 'docs', scope: 'read write' },
    });

    const yes = ctx({
      requestInteraction: async () => ({ action: 'accept', content: { signIn: true } }),
    });
    expect(textOf(await call(h!.registry, 'mcp__docs__note-add', { note: 'y' }, yes))).toBe(
      'noted (1)',
    );
    expect(opened()).toBe(2);
    expect(as!.log.filter((l) => l.path === '/authorize').at(-1)!.params.scope).toBe('read write');
  });

  it('a URL change clears the stored sign-in', async () => {
    const { store } = await setup();
    await h!.manager.sync([{ id: 'docs', url: rs!.url, enabled: true }]);
    await h!.manager.signIn('docs');
    expect(await store.load('docs')).not.toBeNull();
    const other = rs!.url.replace('127.0.0.1', 'localhost');
    const tokens = [...as!.tokens.keys()];
    await h!.manager.sync([{ id: 'docs', url: other, enabled: true }]);
    const kept = (await store.load('docs')) ?? '';
    expect(tokens.filter((t) => kept.includes(t))).toEqual([]);
    expect(JSON.parse(kept || '{}')).not.toHaveProperty('client');
    expect(h!.manager.status()[0]).toMatchObject({
      state: 'needs_sign_in',
      auth: { signedIn: false },
    });
  });
});

describe('afterFailedCall (what is sent again)', () => {
  it('every combination: sign-ins and other errors pass through; resend exactly when the call did not run and nothing it needs is lost, or it is a read', () => {
    const kinds = ['session_expired', 'unreachable', 'unauthorized', 'sign_in', 'other'] as const;
    for (const kind of kinds) {
      for (const readOnly of [true, false]) {
        for (const isolation of ['shared', 'per_thread'] as const) {
          const d = afterFailedCall({
            kind,
            readOnly,
            isolation,
            serverId: 's',
            tool: 't',
            error: new Error('x'),
          });
          const label = `${kind} ${readOnly ? 'read' : 'write'} ${isolation}`;
          if (kind === 'sign_in' || kind === 'other') expect(d.kind, label).toBe('rethrow');
          else if (kind === 'unauthorized') expect(d.kind, label).toBe('fail');
          else if (readOnly || (kind === 'session_expired' && isolation === 'shared'))
            expect(d.kind, label).toBe('resend');
          else
            expect(d, label).toMatchObject({
              kind: 'fail',
              message:
                kind === 'unreachable'
                  ? expect.stringMatching(/unknown whether/)
                  : expect.stringMatching(/did not run/),
            });
        }
      }
    }
  });
});
