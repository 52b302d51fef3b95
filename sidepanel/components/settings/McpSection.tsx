import { useState } from 'preact/hooks';
import type { PublicSettings } from '../../../src/protocol';
import { formatTime } from '../../format';
import { t } from '../../i18n';
import { Icon } from '../icons';
import { usePanel } from '../panel-context';
import { validBaseURL } from './presets';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

type Server = PublicSettings['mcpServers'][number];

const SERVER_ID = /^[A-Za-z0-9_-]{1,40}$/;

/** The redirect URL to register with an OAuth app (launchWebAuthFlow's), when the API is here. */
function redirectUrl(): string {
  try {
    return (
      globalThis.chrome?.identity?.getRedirectURL?.() ?? 'https://<extension id>.chromiumapp.org/'
    );
  } catch {
    return 'https://<extension id>.chromiumapp.org/';
  }
}

type Auth = NonNullable<NonNullable<Server['status']>['auth']>;

/** OAuth status of a server: needs sign-in, signing in, signed in (expiry), last failure. */
function AuthLine({ server, auth }: { server: Server; auth: Auth | undefined }) {
  const panel = usePanel();
  const needs = server.status?.state === 'needs_sign_in';
  if (!auth && !needs) return null;
  const send = (type: 'mcp.signIn' | 'mcp.signOut') =>
    void panel.client.send({ type, serverId: server.id });
  const who = auth?.account ? t('mcpSignedInAs', auth.account) : t('mcpSignedIn');
  const expiry = auth?.expiresAt
    ? `${who} · ${t('mcpTokenExpires', formatTime(auth.expiresAt))}${auth.renewable ? ` (${t('mcpSignedInRenews')})` : ''}`
    : who;
  return (
    <div
      class="mcp-auth"
      data-mcp-auth={auth?.signingIn ? 'signing_in' : auth?.signedIn ? 'signed_in' : 'signed_out'}
    >
      <p class="field-help">
        {auth?.signingIn ? t('mcpSigningIn') : auth?.signedIn ? expiry : t('mcpSignInHelp')}
        {auth?.scope ? ` · ${auth.scope}` : ''}
      </p>
      {auth?.error && (
        <p class="field-error" role="alert">
          {t('mcpSignInFailed', auth.error)}
        </p>
      )}
      <div class="row-actions">
        <button
          type="button"
          class={`btn small ${auth?.signedIn ? '' : 'primary'}`}
          disabled={auth?.signingIn}
          data-action="mcp-sign-in"
          onClick={() => send('mcp.signIn')}
        >
          {auth?.signedIn ? t('mcpSignInAgain') : t('mcpSignIn')}
        </button>
        {auth?.signedIn && (
          <button
            type="button"
            class="btn small"
            data-action="mcp-sign-out"
            onClick={() => send('mcp.signOut')}
          >
            {t('mcpSignOut')}
          </button>
        )}
      </div>
    </div>
  );
}

function ServerRow({ server }: { server: Server }) {
  const panel = usePanel();
  const [status, save] = useSave();
  const [token, setToken] = useState('');
  const [editing, setEditing] = useState(false);
  const patch = (changes: Partial<{ enabled: boolean; token: string }>) =>
    save(() =>
      panel.updateSettings({
        mcpServers: [{ id: server.id, url: server.url, enabled: server.enabled, ...changes }],
      }),
    );
  return (
    <li class="mcp-row" data-server-id={server.id}>
      <div class="provider-head">
        <strong>{server.label || server.id}</strong>
        <span class={`badge ${server.hasToken ? 'ok' : ''}`}>
          {server.hasToken ? t('tokenSaved') : t('noToken')}
        </span>
        {server.enabled && server.status && (
          <span
            class={`badge ${server.status.state === 'connected' ? 'ok' : server.status.state === 'error' ? 'danger' : ''}`}
            title={server.status.message ?? ''}
            data-mcp-state={server.status.state}
          >
            {server.status.state === 'connected'
              ? t('mcpConnected', String(server.status.toolCount ?? 0))
              : server.status.state === 'error'
                ? t('mcpError')
                : server.status.state === 'needs_sign_in'
                  ? t('mcpNeedsSignIn')
                  : t('mcpConnecting')}
          </span>
        )}
      </div>
      <div class="provider-url">{server.url}</div>
      {server.enabled && !server.hasToken && (
        <AuthLine server={server} auth={server.status?.auth} />
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={server.enabled}
          onChange={(e) => void patch({ enabled: (e.currentTarget as HTMLInputElement).checked })}
        />
        <span>{t('enabled')}</span>
      </label>
      {editing ? (
        <div class="inline-form">
          <div class="field grow">
            <label for={`mcp-token-${server.id}`}>{t('mcpToken')}</label>
            <input
              id={`mcp-token-${server.id}`}
              type="password"
              autocomplete="off"
              value={token}
              onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <button
            type="button"
            class="btn primary small"
            disabled={!token}
            onClick={() =>
              void patch({ token }).then((ok) => ok && (setToken(''), setEditing(false)))
            }
          >
            {t('save')}
          </button>
          <button type="button" class="btn small" onClick={() => setEditing(false)}>
            {t('cancel')}
          </button>
        </div>
      ) : (
        <div class="row-actions">
          <button type="button" class="btn small" onClick={() => setEditing(true)}>
            {server.hasToken ? t('replaceToken') : t('setToken')}
          </button>
          <button
            type="button"
            class="btn small"
            onClick={() =>
              void save(() =>
                panel.updateSettings({ mcpServers: [{ id: server.id, remove: true }] }),
              )
            }
          >
            {t('remove')}
          </button>
        </div>
      )}
      <SaveStatusLine status={status} />
    </li>
  );
}

function AddServer({ taken, onDone }: { taken: string[]; onDone: () => void }) {
  const panel = usePanel();
  const [id, setId] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [status, save] = useSave();
  const idOk = SERVER_ID.test(id) && !taken.includes(id);
  const urlOk = validBaseURL(url);
  return (
    <form
      class="add-form"
      aria-label={t('addMcpServer')}
      onSubmit={(e) => {
        e.preventDefault();
        const oauth = clientId.trim()
          ? {
              oauthClientId: clientId.trim(),
              ...(clientSecret ? { oauthClientSecret: clientSecret } : {}),
            }
          : {};
        void save(() =>
          panel.updateSettings({
            mcpServers: [
              { id, url: url.trim(), token: token || undefined, enabled: true, ...oauth },
            ],
          }),
        ).then((ok) => ok && onDone());
      }}
    >
      <div class="field">
        <label for="mcp-id">{t('mcpId')}</label>
        <input
          id="mcp-id"
          value={id}
          spellcheck={false}
          aria-invalid={id && !idOk ? 'true' : undefined}
          aria-describedby="mcp-id-help"
          onInput={(e) => setId((e.currentTarget as HTMLInputElement).value)}
        />
        <p class="field-help" id="mcp-id-help">
          {t('mcpIdHelp')}
        </p>
      </div>
      <div class="field">
        <label for="mcp-url">{t('mcpUrl')}</label>
        <input
          id="mcp-url"
          type="url"
          placeholder="https://example.com/mcp"
          value={url}
          onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <div class="field">
        <label for="mcp-token">{t('mcpTokenOptional')}</label>
        <input
          id="mcp-token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <details class="field">
        <summary>{t('mcpOAuthClient')}</summary>
        <p class="field-help">{t('mcpOAuthClientHelp', redirectUrl())}</p>
        <label for="mcp-client-id">{t('mcpOAuthClientId')}</label>
        <input
          id="mcp-client-id"
          value={clientId}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => setClientId((e.currentTarget as HTMLInputElement).value)}
        />
        <label for="mcp-client-secret">{t('mcpOAuthClientSecret')}</label>
        <input
          id="mcp-client-secret"
          type="password"
          autocomplete="off"
          value={clientSecret}
          onInput={(e) => setClientSecret((e.currentTarget as HTMLInputElement).value)}
        />
      </details>
      <div class="row-actions">
        <button type="submit" class="btn primary small" disabled={!idOk || !urlOk}>
          {t('add')}
        </button>
        <button type="button" class="btn small" onClick={onDone}>
          {t('cancel')}
        </button>
      </div>
      <SaveStatusLine status={status} />
    </form>
  );
}

/** Remote MCP servers (Streamable HTTP). Tokens are write-only like API keys. */
export function McpSection({ servers }: { servers: Server[] }) {
  const [adding, setAdding] = useState(false);
  return (
    <section class="settings-section" aria-labelledby="set-mcp">
      <h2 id="set-mcp">{t('mcpTitle')}</h2>
      <p class="field-help">{t('mcpHelp')}</p>
      <ul class="provider-list">
        {servers.map((s) => (
          <ServerRow key={s.id} server={s} />
        ))}
      </ul>
      {adding ? (
        <AddServer taken={servers.map((s) => s.id)} onDone={() => setAdding(false)} />
      ) : (
        <button type="button" class="btn small" onClick={() => setAdding(true)}>
          <Icon name="plus" />
          <span>{t('addMcpServer')}</span>
        </button>
      )}
    </section>
  );
}
