import { formatUsage } from '../format';
import { t } from '../i18n';
import { ExportMenu } from './ExportMenu';
import { Icon } from './icons';
import { useEngine, usePanel, useThread, useUi } from './panel-context';

/** Top bar: threads, the open thread's title and total usage, new chat, settings. */
export function Header() {
  const panel = usePanel();
  const view = useUi((u) => u.view);
  const threadId = useUi((u) => u.selectedThreadId);
  const meta = useEngine((s) =>
    threadId ? s.threads.find((m) => m.threadId === threadId) : undefined,
  );
  const threadUsage = useThread(threadId, (th) => th?.threadUsage ?? null);
  const title =
    view === 'threads'
      ? t('threadsTitle')
      : view === 'settings'
        ? t('settingsTitle')
        : view === 'workflows'
          ? t('workflowsTitle')
          : meta?.title || (threadId ? t('untitled') : t('newChat'));
  return (
    <header class="app-header">
      {view === 'chat' ? (
        <button
          type="button"
          class="icon-btn"
          aria-label={t('openThreads')}
          title={t('openThreads')}
          data-action="threads"
          onClick={() => panel.setView('threads')}
        >
          <Icon name="menu" />
        </button>
      ) : (
        <button
          type="button"
          class="icon-btn"
          aria-label={t('backToChat')}
          title={t('backToChat')}
          onClick={() => panel.setView('chat')}
        >
          <Icon name="back" />
        </button>
      )}
      <div class="header-title">
        <h1>{title}</h1>
        {view === 'chat' &&
          threadUsage &&
          threadUsage.usage.inputTokens + threadUsage.usage.outputTokens > 0 && (
            <p class="thread-usage" role="note" aria-label={t('threadUsageLabel')}>
              {formatUsage(threadUsage.usage, threadUsage.costUsd)}
            </p>
          )}
      </div>
      {view === 'chat' && threadId && meta && <ExportMenu threadId={threadId} />}
      <button
        type="button"
        class="icon-btn"
        aria-label={t('newChat')}
        title={t('newChat')}
        data-action="new-thread"
        onClick={() => void panel.newThread()}
      >
        <Icon name="plus" />
      </button>
      <button
        type="button"
        class={`icon-btn${view === 'workflows' ? ' active' : ''}`}
        aria-label={t('openWorkflows')}
        aria-pressed={view === 'workflows'}
        title={t('openWorkflows')}
        data-action="workflows"
        onClick={() => panel.setView(view === 'workflows' ? 'chat' : 'workflows')}
      >
        <Icon name="queue" />
      </button>
      <button
        type="button"
        class={`icon-btn${view === 'settings' ? ' active' : ''}`}
        aria-label={t('settingsTitle')}
        aria-pressed={view === 'settings'}
        title={t('settingsTitle')}
        data-action="settings"
        onClick={() => panel.setView(view === 'settings' ? 'chat' : 'settings')}
      >
        <Icon name="gear" />
      </button>
    </header>
  );
}
