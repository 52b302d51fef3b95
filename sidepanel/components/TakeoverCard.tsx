import { useEffect, useState } from 'preact/hooks';
import type { InteractionRequest } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { NoteField } from './NoteField';
import { usePanel } from './panel-context';

/**
 * "Your turn" (issue 28): the agent handed the page to the user (`request_takeover`). The tab
 * comes to the front; the user acts there, then presses Done (with an optional note that reaches
 * the model) or Cancel. Keel does not watch what the user does meanwhile.
 */
export function TakeoverCard({ request }: { request: InteractionRequest }) {
  const panel = usePanel();
  const payload = (request.payload ?? {}) as { reason?: unknown; tabId?: unknown };
  const reason = typeof payload.reason === 'string' ? payload.reason : '';
  const tabId = typeof payload.tabId === 'number' ? payload.tabId : undefined;
  const [note, setNote] = useState('');
  const [sending, setSending] = useState(false);
  const idPrefix = `takeover-${request.interactionId}`;

  useEffect(() => {
    if (tabId !== undefined) void panel.showTab(tabId);
  }, [request.interactionId]);

  const send = async (response: unknown) => {
    if (sending) return;
    setSending(true);
    if (!(await panel.respondInteraction(request.interactionId, response))) setSending(false);
  };

  return (
    <section class="interaction-card takeover-card" aria-labelledby={`${idPrefix}-q`}>
      <h2 class="interaction-question" id={`${idPrefix}-q`}>
        <Icon name="info" />
        <span>{t('takeoverTitle', reason)}</span>
      </h2>
      <p class="hint">{t('takeoverHelp')}</p>
      <NoteField id={`${idPrefix}-note`} value={note} onInput={setNote} />
      <div class="approval-actions">
        <button
          type="button"
          class="btn primary"
          data-action="takeover-done"
          disabled={sending}
          onClick={() =>
            void send(note.trim() ? { done: true, note: note.trim() } : { done: true })
          }
        >
          {t('takeoverDone')}
        </button>
        <button
          type="button"
          class="btn"
          data-action="takeover-cancel"
          disabled={sending}
          onClick={() => void send({ cancelled: true })}
        >
          {t('takeoverCancel')}
        </button>
      </div>
    </section>
  );
}
