import { useState } from 'preact/hooks';
import type { QueueItem } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { usePanel, useThread } from './panel-context';

const NO_QUEUE: QueueItem[] = [];

function QueueEntry({
  threadId,
  entry,
  index,
}: {
  threadId: string;
  entry: QueueItem;
  index: number;
}) {
  const panel = usePanel();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(entry.input.text);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setBusy(true);
    const ok = await panel.updateQueueItem(threadId, entry.queueItemId, {
      ...entry.input,
      text: draft,
    });
    setBusy(false);
    if (ok) setEditing(false);
  };

  if (editing) {
    return (
      <li class="queue-item editing" data-queue-id={entry.queueItemId}>
        <label class="sr-only" for={`queue-edit-${entry.queueItemId}`}>
          {t('queueEditLabel', index + 1)}
        </label>
        <textarea
          id={`queue-edit-${entry.queueItemId}`}
          value={draft}
          rows={2}
          ref={(el) => el?.focus()}
          onInput={(e) => setDraft((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void save();
            } else if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setEditing(false);
            }
          }}
        />
        <div class="queue-actions">
          <button
            type="button"
            class="btn primary small"
            disabled={busy || !draft.trim()}
            onClick={() => void save()}
          >
            {t('save')}
          </button>
          <button type="button" class="btn small" onClick={() => setEditing(false)}>
            {t('cancel')}
          </button>
        </div>
      </li>
    );
  }
  return (
    <li class="queue-item" data-queue-id={entry.queueItemId}>
      <span class="queue-index" aria-hidden="true">
        {index + 1}
      </span>
      <span class="queue-text">{entry.input.text || t('queueImagesOnly')}</span>
      <button
        type="button"
        class="icon-btn"
        aria-label={t('queueEdit', index + 1)}
        data-action="edit"
        onClick={() => {
          setDraft(entry.input.text);
          setEditing(true);
        }}
      >
        <Icon name="edit" />
      </button>
      <button
        type="button"
        class="icon-btn"
        aria-label={t('queueRemove', index + 1)}
        data-action="remove"
        onClick={() => void panel.removeQueueItem(threadId, entry.queueItemId)}
      >
        <Icon name="trash" />
      </button>
    </li>
  );
}

/** Messages waiting for the current turn to end (at most 8), each editable and removable. */
export function QueueList({ threadId }: { threadId: string }) {
  const queue = useThread(threadId, (th) => th?.queue ?? NO_QUEUE);
  if (queue.length === 0) return null;
  return (
    <section class="queue" aria-label={t('queueTitle', queue.length)}>
      <h2 class="section-title">{t('queueTitle', queue.length)}</h2>
      <ol>
        {queue.map((entry, i) => (
          <QueueEntry key={entry.queueItemId} threadId={threadId} entry={entry} index={i} />
        ))}
      </ol>
    </section>
  );
}
