import { useState } from 'preact/hooks';
import type { UserMessageItem } from '../../src/protocol';
import { t } from '../i18n';
import { MessageActions } from './MessageActions';
import { usePanel } from './panel-context';
import { UserMessage } from './UserMessage';

/**
 * A user message with its actions, including edit & resend: the edited text is submitted under the
 * same parent, which forks the history (the branch switcher then shows both versions). The first
 * message has no parent node to branch from, so it offers fork/copy only.
 */
export function UserMessageRow({
  threadId,
  item,
  parentId,
}: {
  threadId: string;
  item: UserMessageItem;
  parentId: string | null;
}) {
  const panel = usePanel();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.text);
  const [busy, setBusy] = useState(false);
  const canEdit = parentId !== null && !item.steered;

  const resend = async () => {
    if (!parentId || !text.trim()) return;
    setBusy(true);
    const ok = await panel.editAndResend(threadId, parentId, {
      text: text.trim(),
      images: item.images,
    });
    setBusy(false);
    if (ok) setEditing(false);
  };

  if (editing) {
    return (
      <form
        class="msg user editing"
        aria-label={t('editMessage')}
        onSubmit={(e) => {
          e.preventDefault();
          void resend();
        }}
      >
        <label class="sr-only" for={`edit-${item.id}`}>
          {t('editMessage')}
        </label>
        <textarea
          id={`edit-${item.id}`}
          rows={3}
          value={text}
          ref={(el) => el?.focus()}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setEditing(false);
            } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void resend();
            }
          }}
        />
        <div class="row-actions">
          <button type="submit" class="btn primary small" disabled={busy || !text.trim()}>
            {t('resend')}
          </button>
          <button type="button" class="btn small" onClick={() => setEditing(false)}>
            {t('cancel')}
          </button>
        </div>
      </form>
    );
  }
  return (
    <>
      <UserMessage item={item} />
      <MessageActions
        threadId={threadId}
        item={item}
        onEdit={
          canEdit
            ? () => {
                setText(item.text);
                setEditing(true);
              }
            : undefined
        }
      />
    </>
  );
}
