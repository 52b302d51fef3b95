// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { settings } from './helpers/fixtures';
import { byText, click, mountPanel, q, type Mounted } from './helpers/mount';

const pairing = (status: 'pending' | 'allowed' | 'denied' | 'revoked', name = 'Claude Code') => ({
  pairingId: `pair_${status}`,
  clientName: name,
  status,
  createdAt: 1,
  updatedAt: 2,
});

describe('Keel as an MCP server in the panel', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('asks the user about a pending pairing, on any screen, and sends the answer', async () => {
    m = await mountPanel({
      settings: settings({
        mcpBridge: { enabled: true, port: 17_345, pairings: [pairing('pending', 'Cursor')] },
      }),
    });
    const card = q(m.container, '.pairing-request');
    expect(card.textContent).toContain('"Cursor" asks to use this browser through Keel.');
    await click(byText(card, 'button', 'Allow'));
    expect(m.port().last('bridge.pairingRespond')).toMatchObject({
      pairingId: 'pair_pending',
      decision: 'allow',
    });
  });

  it('lists pairings in settings and revokes one', async () => {
    m = await mountPanel({
      settings: settings({
        mcpBridge: {
          enabled: true,
          port: 17_345,
          pairings: [pairing('allowed'), pairing('denied', 'Other')],
        },
      }),
    });
    await click(q(m.container, '[data-action="settings"]'));
    const row = q(m.container, '[data-pairing="pair_allowed"]');
    expect(row.textContent).toContain('Claude Code');
    expect(row.textContent).toContain('Allowed');
    expect(q(m.container, '[data-pairing="pair_denied"]').querySelector('button')).toBeNull();
    await click(byText(row, 'button', 'Revoke'));
    expect(m.port().last('bridge.pairingRevoke')).toMatchObject({ pairingId: 'pair_allowed' });
  });
});
