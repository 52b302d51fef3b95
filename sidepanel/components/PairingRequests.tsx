import { t } from '../i18n';
import { useEngine, usePanel } from './panel-context';

/**
 * An outside agent asks to use Keel through the MCP bridge (docs/mcp-server.md): the user allows
 * or denies it here, on every screen, since the agent waits. Nothing is served before Allow.
 */
export function PairingRequests() {
  const panel = usePanel();
  const pending = useEngine((s) =>
    (s.settings?.mcpBridge?.pairings ?? []).filter((p) => p.status === 'pending'),
  );
  if (!pending.length) return null;
  return (
    <div class="pairing-requests">
      {pending.map((p) => (
        <section
          key={p.pairingId}
          class="approval-card pairing-request"
          role="alertdialog"
          aria-label={t('bridgePairingRequest', p.clientName)}
          data-pairing={p.pairingId}
        >
          <p>{t('bridgePairingRequest', p.clientName)}</p>
          <p class="field-help">{t('bridgePairingHelp')}</p>
          <div class="approval-actions">
            <button
              type="button"
              class="btn primary"
              onClick={() =>
                void panel.client.send({
                  type: 'bridge.pairingRespond',
                  pairingId: p.pairingId,
                  decision: 'allow',
                })
              }
            >
              {t('bridgeAllow')}
            </button>
            <button
              type="button"
              class="btn"
              onClick={() =>
                void panel.client.send({
                  type: 'bridge.pairingRespond',
                  pairingId: p.pairingId,
                  decision: 'deny',
                })
              }
            >
              {t('bridgeDeny')}
            </button>
          </div>
        </section>
      ))}
    </div>
  );
}
