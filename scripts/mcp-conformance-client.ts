/**
 * Keel's MCP client as a command-line program, for the MCP conformance runner
 * (@modelcontextprotocol/conformance) and for trying a server by hand. It drives the same code the
 * extension uses (src/tools/mcp: McpManager → ServerConnection → McpSession → SDK Client).
 *
 *   npx tsx scripts/mcp-conformance-client.ts [--tool NAME] [--args JSON] <server-url>
 *
 * The runner appends the server URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. Scenarios:
 *   initialize                      initialize + tools/list, then close (DELETE)
 *   tools-call / tools_call         + call every tool with minimal arguments built from its schema
 *   elicitation-defaults,
 *   elicitation-sep1034-client-defaults
 *                                   + call every tool; elicitations are accepted with empty content,
 *                                     so the requested schema's defaults are what the server gets
 *   sse-retry                       + call the server's tool, which drops the SSE stream before its
 *                                   result: the client reconnects with GET, honouring `retry:` and
 *                                   sending `Last-Event-ID`, and receives the result there
 *   (none)                          initialize + tools/list; with --tool, call that tool (with --args,
 *                                   or minimal arguments built from its schema)
 *   auth/*                          OAuth: connect; when the server needs a sign-in, sign in the way
 *                                   settings' Connect button does (manager.signIn), with a headless
 *                                   user agent that follows the authorization server's redirect
 *                                   (the scenario servers approve at once); then call every tool,
 *                                   accepting "sign in to continue" (scope step-up). A pre-registered
 *                                   or machine client comes from MCP_CONFORMANCE_CONTEXT, as a user
 *                                   would configure it.
 * A bearer token may be given in MCP_TOKEN (never printed). Output: one JSON object per line.
 * Exit code 0 when the client did its part (a refusal it reports, such as a resource mismatch, is
 * its part), 1 when it crashed.
 */

/** The CIMD scenario expects this client id (an https URL Keel would publish its metadata at). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const REDIRECT_URL = 'http://localhost:3000/callback';

interface ConformanceContext {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
}

/** The server's OAuth settings as a user would enter them for this scenario. */
function oauthConfig(ctx: ConformanceContext): { config?: McpOAuthConfig; secret: string | null } {
  if (!ctx.client_id) return { secret: null };
  if (ctx.name?.startsWith('auth/client-credentials')) {
    const jwt = Boolean(ctx.private_key_pem);
    return {
      config: {
        grant: 'client_credentials',
        clientId: ctx.client_id,
        clientAuth: jwt ? 'private_key_jwt' : 'client_secret_basic',
        ...(ctx.signing_algorithm ? { jwtAlgorithm: ctx.signing_algorithm } : {}),
      },
      secret: (jwt ? ctx.private_key_pem : ctx.client_secret) ?? null,
    };
  }
  return { config: { clientId: ctx.client_id }, secret: ctx.client_secret ?? null };
}

/**
 * A user agent without a user: request the authorization page and take the redirect it answers
 * with (the scenario servers approve at once), without following it to the redirect URL.
 */
async function headlessAuthorize(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  await res.body?.cancel();
  const location = res.headers.get('location');
  if (!location)
    throw new Error(`the authorization page answered ${res.status} without a redirect`);
  return new URL(location, url).toString();
}
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { ToolRegistry } from '../src/tools/registry';
import { createMcpManager, type McpOAuthConfig } from '../src/tools/mcp';
import { memoryAuthStore } from '../src/tools/mcp/oauth/auth-record';
import { isSignInPayload } from '../src/tools/mcp/sign-in';
import type { ToolCallContext } from '../src/tools/types';
import { openGateForTests } from '../src/gatekeeper/receiver';

interface Cli {
  url: string;
  tool?: string;
  args?: Record<string, unknown>;
}

function parseCli(argv: string[]): Cli {
  const rest = [...argv];
  const cli: Partial<Cli> = {};
  while (rest.length > 1) {
    const flag = rest.shift();
    if (flag === '--tool') cli.tool = rest.shift();
    else if (flag === '--args')
      cli.args = JSON.parse(rest.shift() ?? '{}') as Record<string, unknown>;
    else throw new Error(`unknown argument ${flag}`);
  }
  const url = rest.shift();
  if (!url)
    throw new Error('usage: mcp-conformance-client.ts [--tool NAME] [--args JSON] <server-url>');
  return { ...cli, url };
}

const out = (event: string, data: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, ...data }));

/** Minimal arguments that satisfy a flat object schema: required properties only. */
function minimalArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<
    string,
    { type?: string; enum?: unknown[]; default?: unknown }
  >;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const key of required) {
    const p = props[key] ?? {};
    if (p.default !== undefined) args[key] = p.default;
    else if (p.enum?.length) args[key] = p.enum[0];
    else if (p.type === 'number' || p.type === 'integer') args[key] = 1;
    else if (p.type === 'boolean') args[key] = true;
    else if (p.type === 'array') args[key] = [];
    else if (p.type === 'object') args[key] = {};
    else args[key] = 'test';
  }
  return args;
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const registry = new ToolRegistry();
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as ConformanceContext;
  const oauth = oauthConfig(context);
  const manager = createMcpManager({
    registry,
    getToken: async () => process.env.MCP_TOKEN || null,
    oauth: {
      store: memoryAuthStore(),
      redirectUrl: REDIRECT_URL,
      clientMetadataUrl: CLIENT_METADATA_URL,
      clientName: 'keel-conformance-client',
      authorize: (url) => headlessAuthorize(url),
      getClientSecret: async () => oauth.secret,
      privateKeyJwt: ({ clientId, privateKey, alg }) =>
        createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg }),
    },
    clientInfo: { name: 'keel-conformance-client', version: '0.1.0' },
    log: (level, message, data) => {
      if (level !== 'debug') console.error(JSON.stringify({ level, message, ...data }));
    },
  });
  const ctx: ToolCallContext = {
    threadId: 'conformance',
    runId: 'conformance',
    model: { vision: true },
    gate: openGateForTests(),
    requestInteraction: async (_kind, payload) => {
      // "Sign in to X to continue": the user agrees (the sign-in itself is Keel's).
      if (isSignInPayload(payload)) {
        out('sign_in_requested', { payload });
        return { action: 'accept', content: { signIn: true } };
      }
      out('elicitation', { payload });
      return { action: 'accept', content: {} };
    },
  };

  try {
    await manager.sync([
      {
        id: 'conformance',
        url: cli.url,
        enabled: true,
        ...(oauth.config ? { oauth: oauth.config } : {}),
      },
    ]);
    let [status] = manager.status();
    if (status.state === 'needs_sign_in') {
      out('needs_sign_in', { message: status.message });
      try {
        await manager.signIn('conformance');
      } catch (err) {
        out('sign_in_failed', { error: err instanceof Error ? err.message : String(err) });
      }
      [status] = manager.status();
    }
    out('initialized', {
      state: status.state,
      server: status.server,
      tools: status.serverToolCount,
      message: status.message,
      auth: status.auth,
    });
    if (status.state !== 'connected') return scenario.startsWith('auth/') ? 0 : 1;

    const tools = registry.list().map((r) => r.tool);
    let toCall: typeof tools = [];
    if (/^tools[-_]call$|^elicitation|^sse-retry$|^auth\//.test(scenario)) {
      // The runner's scenario servers are mocks: calling every tool they offer is the test.
      toCall = tools;
    } else if (cli.tool) {
      // By hand, only the tool asked for: a real server's tools may change things.
      toCall = tools.filter((t) => t.name.endsWith(`__${cli.tool}`));
      if (toCall.length === 0) out('error', { error: `no tool named ${cli.tool}` });
    } else if (scenario && scenario !== 'initialize') {
      out('note', { scenario, message: 'scenario not handled beyond initialize + tools/list' });
    }
    for (const t of toCall) {
      const args = cli.args ?? minimalArgs(t.inputSchema ?? {});
      try {
        const result = await t.execute(
          `call-${t.name}`,
          args,
          new AbortController().signal,
          (u) => out('progress', { tool: t.name, text: u.progressText }),
          ctx,
        );
        out('result', {
          tool: t.name,
          isError: result.isError ?? false,
          content: result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)),
        });
      } catch (err) {
        out('error', { tool: t.name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return 0;
  } finally {
    await manager.close();
    out('closed');
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    out('fatal', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
