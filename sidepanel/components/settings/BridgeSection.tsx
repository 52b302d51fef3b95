import { useState } from 'preact/hooks';
import type { PublicSettings } from '../../../src/protocol';
import { formatTime } from '../../format';
import { t, type MessageKey } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

type Bridge = NonNullable<PublicSettings['mcpBridge']>;
type Status = Bridge['pairings'][number]['status'];

const STATUS_LABEL: Record<Status, MessageKey> = {
  pending: 'bridgePairingPending',
  allowed: 'bridgePairingAllowed',
  denied: 'bridgePairingDenied',
  revoked: 'bridgePairingRevoked',
};

/**
 * Keel as an MCP server (docs/mcp-server.md): on/off, the first port the worker tries, and the
 * outside clients paired with Keel, each revocable.
 */
export function BridgeSection({ bridge }: { bridge: Bridge | undefined }) {
  const panel = usePanel();
  const [status, save] = useSave();
  const b = bridge ?? { enabled: false, port: 17_345, pairings: [] };
  const [port, setPort] = useState(String(b.port));
  return (
    <section class="settings-section" aria-labelledby="set-bridge">
      <h2 id="set-bridge">{t('bridgeTitle')}</h2>
      <p class="field-help">{t('bridgeHelp')}</p>
      <label class="check">
        <input
          type="checkbox"
          checked={b.enabled}
          onChange={(e) =>
            void save(() =>
              panel.updateSettings({
                mcpBridge: { enabled: (e.currentTarget as HTMLInputElement).checked },
              }),
            )
          }
        />
        {t('bridgeEnabled')}
      </label>
      <div class="field">
        <label for="bridge-port">{t('bridgePort')}</label>
        <input
          id="bridge-port"
          inputMode="numeric"
          value={port}
          onInput={(e) => setPort((e.currentTarget as HTMLInputElement).value)}
          onBlur={() => {
            const n = Number(port);
            if (Number.isInteger(n) && n >= 1024 && n <= 65_000 && n !== b.port)
              void save(() => panel.updateSettings({ mcpBridge: { port: n } }));
          }}
        />
      </div>
      {b.pairings.length === 0 ? (
        <p class="empty-list">{t('bridgeNoPairings')}</p>
      ) : (
        <ul class="bridge-pairings">
          {b.pairings.map((p) => (
            <li key={p.pairingId} data-pairing={p.pairingId} data-status={p.status}>
              <span class="bridge-client">{p.clientName}</span>
              <span class="bridge-status">
                {t(STATUS_LABEL[p.status])} · {formatTime(p.updatedAt)}
              </span>
              {p.status === 'allowed' || p.status === 'pending' ? (
                <button
                  type="button"
                  class="btn small"
                  aria-label={t('bridgeRevokeClient', p.clientName)}
                  onClick={() =>
                    void save(() =>
                      panel.client.send({ type: 'bridge.pairingRevoke', pairingId: p.pairingId }),
                    )
                  }
                >
                  {t('bridgeRevoke')}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <SaveStatusLine status={status} />
    </section>
  );
}
