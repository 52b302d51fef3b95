import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { useEngine, usePanel, useThread } from './panel-context';

/**
 * "Save as workflow" under a turn that finished normally. The engine decides whether the turn
 * can be replayed (it acted on a page, every element can be described); its refusal is shown.
 */
export function SaveWorkflow({ threadId }: { threadId: string }) {
  const panel = usePanel();
  const run = useThread(threadId, (th) => th?.run ?? null);
  const title = useEngine((s) => s.threads.find((m) => m.threadId === threadId)?.title ?? '');
  const [status, setStatus] = useState<{ turnId: string; text: string; error: boolean } | null>(
    null,
  );
  const [name, setName] = useState<string | null>(null);
  if (!run || run.state !== 'completed' || run.stopReason !== 'end') return null;
  const shown = status?.turnId === run.turnId ? status : null;
  if (shown && !shown.error)
    return (
      <p class="workflow-saved" role="status">
        {shown.text}
      </p>
    );
  const save = async () => {
    const out = await panel.saveWorkflow(
      threadId,
      run.turnId,
      (name ?? title).trim() || t('workflowsTitle'),
    );
    setStatus({
      turnId: run.turnId,
      text: out.ok ? t('workflowSaved') : out.message,
      error: !out.ok,
    });
    setName(null);
  };
  return (
    <section class="save-workflow">
      {name === null ? (
        <button
          type="button"
          class="btn small"
          data-action="save-workflow"
          onClick={() => setName(title)}
        >
          {t('saveAsWorkflow')}
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label>
            <span>{t('workflowNamePrompt')}</span>
            <input
              type="text"
              value={name}
              maxLength={200}
              ref={(el) => el?.focus()}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="btn primary small" data-action="confirm-save-workflow">
            {t('saveAsWorkflow')}
          </button>
          <button type="button" class="btn small" onClick={() => setName(null)}>
            {t('cancel')}
          </button>
        </form>
      )}
      {shown?.error && (
        <p class="workflow-error" role="alert">
          {shown.text}
        </p>
      )}
    </section>
  );
}
