import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ThreadMeta } from '../../src/protocol';
import { formatTime } from '../format';
import { t } from '../i18n';
import { isActiveRun, isPausedRun } from '../state/thread-state';
import { HintBar } from './HintBar';
import { Icon } from './icons';
import { useEngine, usePanel, useUi } from './panel-context';

function ThreadRow({ meta, selected }: { meta: ThreadMeta; selected: boolean }) {
  const panel = usePanel();
  const [confirming, setConfirming] = useState(false);
  const title = meta.title || t('untitled');
  const status = isActiveRun(meta.runState) ? t('threadRunning') : isPausedRun(meta.runState) ? t('threadPaused') : null;
  return (
    <li class={`thread-row${selected ? ' selected' : ''}`} data-thread-id={meta.threadId}>
      <button type="button" class="thread-open" aria-current={selected ? 'true' : undefined} onClick={() => panel.selectThread(meta.threadId)}>
        <span class="thread-title">{title}</span>
        <span class="thread-meta">
          {status && <span class={`badge ${isActiveRun(meta.runState) ? 'running' : 'paused'}`}>{status}</span>}
          {meta.parentThreadId && <span class="badge">{t('threadForked')}</span>}
          <time dateTime={new Date(meta.updatedAt).toISOString()}>{formatTime(meta.updatedAt)}</time>
        </span>
      </button>
      {confirming ? (
        <span class="confirm-delete">
          <button
            type="button"
            class="btn danger small"
            data-action="confirm-delete"
            ref={(el) => el?.focus()}
            onClick={() => {
              setConfirming(false);
              void panel.deleteThread(meta.threadId);
            }}
          >
            {t('delete')}
          </button>
          <button type="button" class="btn small" onClick={() => setConfirming(false)}>
            {t('cancel')}
          </button>
        </span>
      ) : (
        <button type="button" class="icon-btn" aria-label={t('deleteThread', title)} data-action="delete" onClick={() => setConfirming(true)}>
          <Icon name="trash" />
        </button>
      )}
    </li>
  );
}

/** All threads, newest first, filtered by a title search. */
export function ThreadList() {
  const panel = usePanel();
  const threads = useEngine((s) => s.threads);
  const selected = useUi((u) => u.selectedThreadId);
  const [query, setQuery] = useState('');
  const search = useRef<HTMLInputElement>(null);
  // Opening the list from the header lands keyboard users in the search box.
  useEffect(() => search.current?.focus(), []);
  const shown = useMemo(() => {
    const q = query.trim().toLocaleLowerCase();
    return q ? threads.filter((m) => (m.title || '').toLocaleLowerCase().includes(q)) : threads;
  }, [threads, query]);
  return (
    <main class="threads-view" aria-label={t('threadsTitle')}>
      <div class="threads-toolbar">
        <label class="sr-only" for="thread-search">
          {t('searchThreads')}
        </label>
        <input
          id="thread-search"
          type="search"
          placeholder={t('searchThreads')}
          value={query}
          ref={search}
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="button" class="btn primary small" onClick={() => void panel.newThread()}>
          <Icon name="plus" />
          <span>{t('newChat')}</span>
        </button>
      </div>
      <HintBar />
      {shown.length === 0 ? (
        <p class="empty-list">{threads.length === 0 ? t('noThreads') : t('noMatches')}</p>
      ) : (
        <ul class="thread-list" aria-label={t('threadsTitle')}>
          {shown.map((m) => (
            <ThreadRow key={m.threadId} meta={m} selected={m.threadId === selected} />
          ))}
        </ul>
      )}
    </main>
  );
}
