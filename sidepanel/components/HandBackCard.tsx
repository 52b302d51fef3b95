import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { Icon } from './icons';
import { NoteField } from './NoteField';
import { usePanel } from './panel-context';

/**
 * "You have the page" (issue 28): the user took the page over and the run rests in
 * `user_control`. Hand back (with an optional note that reaches the model as a steer) lets it go
 * on; Stop in the composer ends it as an interrupt. Keel does not watch what the user does.
 */
export function HandBackCard({ threadId, runId }: { threadId: string; runId: string }) {
  const panel = usePanel();
  const [note, setNote] = useState('');
  const [sending, setSending] = useState(false);
  const idPrefix = `handback-${runId}`;

  const handBack = async () => {
    if (sending) return;
    setSending(true);
    if (!(await panel.handBack(threadId, note.trim() || undefined))) setSending(false);
  };

  return (
    <section class="interaction-card takeover-card" aria-labelledby={`${idPrefix}-q`}>
      <h2 class="interaction-question" id={`${idPrefix}-q`}>
        <Icon name="info" />
        <span>{t('userControlTitle')}</span>
      </h2>
      <p class="hint">{t('userControlHelp')}</p>
      <NoteField id={`${idPrefix}-note`} value={note} onInput={setNote} />
      <div class="approval-actions">
        <button
          type="button"
          class="btn primary"
          data-action="hand-back"
          disabled={sending}
          onClick={() => void handBack()}
        >
          {t('runHandBack')}
        </button>
      </div>
    </section>
  );
}
