// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { toOrigin } from '../../../sidepanel/components/settings/SiteRulesSection';
import { freeProviderId } from '../../../sidepanel/components/settings/presets';
import { settings } from './helpers/fixtures';
import { byText, click, mountPanel, q, typeInto, type Mounted } from './helpers/mount';

async function openSettings(over = {}): Promise<Mounted> {
  const m = await mountPanel({ settings: settings(over) });
  await click(q(m.container, '[data-action="settings"]'));
  return m;
}

async function select(el: Element, value: string, m: Mounted) {
  (el as HTMLSelectElement).value = value;
  el.dispatchEvent(new Event('change', { bubbles: true }));
  await m.flush();
}

describe('settings', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('shows "key saved", never a key, and replaces a key write-only', async () => {
    m = await openSettings();
    const row = q(m.container, '[data-provider-id="anthropic"]');
    expect(row.textContent).toContain('Key saved');
    await click(byText(row, 'button', 'Replace key'));
    const field = q<HTMLInputElement>(row, 'input[type="password"]');
    expect(field.value).toBe('');
    await typeInto(field, 'sk-ant-secret');
    await click(byText(row, 'button', 'Save'));
    const op = m.port().last('settings.update');
    expect(op.patch).toEqual({
      providers: [
        { id: 'anthropic', kind: 'anthropic', label: 'Anthropic', apiKey: 'sk-ant-secret' },
      ],
    });
    m.port().ack(op, { settings: settings() });
    await m.flush();
    expect(m.container.innerHTML).not.toContain('sk-ant-secret');
  });

  it.each([
    ['ollama', 'http://localhost:11434/v1'],
    ['lmstudio', 'http://localhost:1234/v1'],
    ['openrouter', 'https://openrouter.ai/api/v1'],
  ])('adds the %s preset as an OpenAI-compatible provider at %s', async (preset, url) => {
    m = await openSettings();
    await click(byText(m.container, 'button', 'Add provider'));
    await select(q(m.container, '#provider-preset'), preset, m);
    expect(q<HTMLInputElement>(m.container, '#provider-url').value).toBe(url);
    if (preset === 'openrouter') await typeInto(q(m.container, '#provider-key'), 'or-key');
    await click(byText(m.container, '.add-form button', 'Add'));
    const patch = m.port().last('settings.update').patch as {
      providers: Array<Record<string, unknown>>;
    };
    expect(patch.providers[0]).toMatchObject({ id: preset, kind: 'openai', baseURL: url });
  });

  it('makes the first provider the chat model', async () => {
    m = await openSettings({ providers: [], defaultModel: null });
    await select(q(m.container, '#provider-preset'), 'ollama', m);
    await typeInto(q(m.container, '#provider-models'), 'llava, qwen2.5');
    await click(q(m.container, '.add-form input[type="checkbox"]'));
    await click(byText(m.container, '.add-form button', 'Add'));
    expect(m.port().last('settings.update').patch).toEqual({
      providers: [
        {
          id: 'ollama',
          kind: 'openai',
          label: 'Ollama',
          baseURL: 'http://localhost:11434/v1',
          models: [
            { id: 'llava', vision: true },
            { id: 'qwen2.5', vision: true },
          ],
        },
      ],
      defaultModel: { providerId: 'ollama', model: 'llava' },
    });
  });

  it('suggests catalog models for the official APIs', async () => {
    m = await openSettings();
    const options = [...m.container.querySelectorAll('#default-model-models option')].map((o) =>
      o.getAttribute('value'),
    );
    expect(options).toContain('claude-sonnet-4-5');
  });

  it('offers the Responses API kind', async () => {
    m = await openSettings();
    await click(byText(m.container, 'button', 'Add provider'));
    await select(q(m.container, '#provider-preset'), 'openai-responses', m);
    await typeInto(q(m.container, '#provider-key'), 'sk-x');
    await click(byText(m.container, '.add-form button', 'Add'));
    expect(
      (m.port().last('settings.update').patch as { providers: unknown[] }).providers[0],
    ).toMatchObject({ kind: 'openai-responses' });
  });

  it('saves the model and the token budget', async () => {
    m = await openSettings();
    await typeInto(q(m.container, '#default-model-model'), 'claude-y');
    await typeInto(q(m.container, '#token-budget'), '50000');
    await click(byText(m.container, '.settings-section button', 'Save'));
    expect(m.port().last('settings.update').patch).toEqual({
      defaultModel: { providerId: 'anthropic', model: 'claude-y' },
      taskModel: null,
      tokenBudget: 50000,
    });
  });

  it('switches the approval mode', async () => {
    m = await openSettings();
    await click(q(m.container, 'input[name="approval-mode"][value="act"]'));
    expect(m.port().last('settings.update').patch).toEqual({ approvalMode: 'act' });
  });

  it('lists, changes and revokes site permissions', async () => {
    m = await openSettings({
      siteRules: [{ origin: 'https://shop.example', rule: 'allow', updatedAt: 1 }],
    });
    const row = q(m.container, '[data-origin="https://shop.example"]');
    await select(q(row, 'select'), 'block', m);
    expect(m.port().last('siteRules.set')).toMatchObject({
      origin: 'https://shop.example',
      rule: 'block',
    });
    await click(byText(row, 'button', 'Revoke'));
    const revoke = m.port().last('siteRules.set');
    expect(revoke).toMatchObject({ origin: 'https://shop.example', rule: 'ask' });
    m.port().ack(revoke);
    await m.flush();
    expect(
      q(m.container, '[data-origin="https://shop.example"] select').getAttribute('aria-label'),
    ).toContain('shop.example');
    expect(
      (q(m.container, '[data-origin="https://shop.example"] select') as HTMLSelectElement).value,
    ).toBe('ask');
  });

  it('adds and toggles MCP servers with a write-only token', async () => {
    m = await openSettings({
      mcpServers: [{ id: 'docs', url: 'https://mcp.example/mcp', enabled: true, hasToken: true }],
    });
    const row = q(m.container, '[data-server-id="docs"]');
    expect(row.textContent).toContain('Token saved');
    await click(q(row, 'input[type="checkbox"]'));
    expect(m.port().last('settings.update').patch).toEqual({
      mcpServers: [{ id: 'docs', url: 'https://mcp.example/mcp', enabled: false }],
    });

    await click(byText(m.container, 'button', 'Add MCP server'));
    await typeInto(q(m.container, '#mcp-id'), 'everything');
    await typeInto(q(m.container, '#mcp-url'), 'http://127.0.0.1:3001/mcp');
    await typeInto(q(m.container, '#mcp-token'), 'tok');
    await click(byText(m.container, '.add-form button', 'Add'));
    expect(m.port().last('settings.update').patch).toEqual({
      mcpServers: [
        { id: 'everything', url: 'http://127.0.0.1:3001/mcp', token: 'tok', enabled: true },
      ],
    });
  });

  it('an OAuth server: "Sign-in needed" with Connect (mcp.signIn); signed in with expiry and Sign out (mcp.signOut)', async () => {
    const server = {
      id: 'linear',
      url: 'https://mcp.linear.example/mcp',
      enabled: true,
      hasToken: false,
    };
    m = await openSettings({
      mcpServers: [{ ...server, status: { state: 'needs_sign_in', auth: { signedIn: false } } }],
    });
    let row = q(m.container, '[data-server-id="linear"]');
    expect(q(row, '[data-mcp-state]').textContent).toBe('Sign-in needed');
    await click(q(row, '[data-action="mcp-sign-in"]'));
    expect(m.port().last('mcp.signIn')).toMatchObject({ type: 'mcp.signIn', serverId: 'linear' });
    m.unmount();

    const expiresAt = Date.now() + 3_600_000;
    m = await openSettings({
      mcpServers: [
        {
          ...server,
          status: {
            state: 'connected',
            toolCount: 3,
            auth: {
              signedIn: true,
              account: 'ada@example.com',
              renewable: true,
              expiresAt,
              scope: 'read write',
            },
          },
        },
      ],
    });
    row = q(m.container, '[data-server-id="linear"]');
    expect(q(row, '[data-mcp-auth]').getAttribute('data-mcp-auth')).toBe('signed_in');
    expect(row.textContent).toMatch(
      /Signed in as ada@example.com · token expires .+ \(renewed automatically\) · read write/,
    );
    await click(q(row, '[data-action="mcp-sign-out"]'));
    expect(m.port().last('mcp.signOut')).toMatchObject({ type: 'mcp.signOut', serverId: 'linear' });
  });

  it('adds an OAuth server with a pre-registered client: id and write-only secret in the patch', async () => {
    m = await openSettings();
    await click(byText(m.container, 'button', 'Add MCP server'));
    await typeInto(q(m.container, '#mcp-id'), 'gh');
    await typeInto(q(m.container, '#mcp-url'), 'https://mcp.gh.example/mcp');
    await typeInto(q(m.container, '#mcp-client-id'), 'Iv1.abc');
    await typeInto(q(m.container, '#mcp-client-secret'), 'shh');
    await click(byText(m.container, '.add-form button', 'Add'));
    expect(m.port().last('settings.update').patch).toEqual({
      mcpServers: [
        {
          id: 'gh',
          url: 'https://mcp.gh.example/mcp',
          enabled: true,
          oauthClientId: 'Iv1.abc',
          oauthClientSecret: 'shh',
        },
      ],
    });
  });

  it('chooses the language (browser default = null)', async () => {
    m = await openSettings({ locale: 'zh-CN' });
    const sel = q<HTMLSelectElement>(m.container, '#language');
    expect(sel.value).toBe('zh-CN');
    await select(sel, '', m);
    expect(m.port().last('settings.update').patch).toEqual({ locale: null });
    await select(sel, 'en', m);
    expect(m.port().last('settings.update').patch).toEqual({ locale: 'en' });
  });

  it('shows a rejected save', async () => {
    m = await openSettings();
    await click(q(m.container, 'input[name="approval-mode"][value="act"]'));
    m.port().reject(m.port().last('settings.update'), 'invalid_command', 'bad patch');
    await m.flush();
    expect(q(m.container, '.save-status.error').textContent).toContain('bad patch');
  });
});

describe('settings helpers', () => {
  it('normalizes site origins', () => {
    expect(toOrigin('example.com')).toBe('https://example.com');
    expect(toOrigin('http://localhost:8080/a/b?c')).toBe('http://localhost:8080');
    expect(toOrigin('javascript:alert(1)')).toBeNull();
    expect(toOrigin('')).toBeNull();
  });
  it('picks a free provider id', () => {
    expect(freeProviderId('ollama', [])).toBe('ollama');
    expect(freeProviderId('ollama', ['ollama', 'ollama-2'])).toBe('ollama-3');
  });
});
