import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ThreadMeta } from '../../src/protocol';
import { formatCost, formatTime } from '../format';
import { t } from '../i18n';
import { isActiveRun, isPausedRun } from '../state/thread-state';
import { HintBar } from './HintBar';
import { Icon } from './icons';
import { useEngine, usePanel, useUi } from './panel-context';

/** How long typing must pause before the engine searches message text. */
const SEARCH_DEBOUNCE_MS = 250;

function ThreadRow({
  meta,
  selected,
  snippet,
}: {
  meta: ThreadMeta;
  selected: boolean;
  snippet?: string;
}) {
  const panel = usePanel();
  const [confirming, setConfirming] = useState(false);
  const title = meta.title || t('untitled');
  const status = isActiveRun(meta.runState)
    ? t('threadRunning')
    : isPausedRun(meta.runState)
      ? t('threadPaused')
      : null;
  return (
    <li class={`thread-row${selected ? ' selected' : ''}`} data-thread-id={meta.threadId}>
      <button
        type="button"
        class="thread-open"
        aria-current={selected ? 'true' : undefined}
        onClick={() => panel.selectThread(meta.threadId)}
      >
        <span class="thread-title">{title}</span>
        {snippet && <span class="thread-snippet">{snippet}</span>}
        <span class="thread-meta">
          {status && (
            <span class={`badge ${isActiveRun(meta.runState) ? 'running' : 'paused'}`}>
              {status}
            </span>
          )}
          {meta.parentThreadId && <span class="badge">{t('threadForked')}</span>}
          <time dateTime={new Date(meta.updatedAt).toISOString()}>
            {formatTime(meta.updatedAt)}
          </time>
          {meta.costUsd !== undefined && meta.costUsd > 0 && (
            <span class="thread-cost">
              <span class="sr-only">{t('threadCostLabel', formatCost(meta.costUsd))}</span>
              <span aria-hidden="true">{formatCost(meta.costUsd)}</span>
            </span>
          )}
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
        <button
          type="button"
          class="icon-btn"
          aria-label={t('deleteThread', title)}
          data-action="delete"
          onClick={() => setConfirming(true)}
        >
          <Icon name="trash" />
        </button>
      )}
    </li>
  );
}

/**
 * Text matches from the engine for `query` (after a pause in typing), keyed by thread. Titles
 * are filtered at once in the panel; message text lives in the engine's store.
 */
function useTextMatches(query: string): Map<string, string | undefined> | null {
  const panel = usePanel();
  const [found, setFound] = useState<{
    query: string;
    matches: Map<string, string | undefined>;
  } | null>(null);
  useEffect(() => {
    const q = query.trim();
    if (!q) return;
    let live = true;
    const timer = setTimeout(() => {
      void panel.searchThreads(q).then((matches) => {
        if (live && matches)
          setFound({ query: q, matches: new Map(matches.map((m) => [m.threadId, m.snippet])) });
      });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [query]);
  return found && found.query === query.trim() ? found.matches : null;
}

/** All threads, newest first, filtered by title at once and by message text from the engine. */
export function ThreadList() {
  const panel = usePanel();
  const threads = useEngine((s) => s.threads);
  const selected = useUi((u) => u.selectedThreadId);
  const [query, setQuery] = useState('');
  const search = useRef<HTMLInputElement>(null);
  // Opening the list from the header lands keyboard users in the search box.
  useEffect(() => search.current?.focus(), []);
  const text = useTextMatches(query);
  const shown = useMemo(() => {
    const words = query.trim().toLocaleLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return threads;
    const byTitle = (m: ThreadMeta) =>
      words.every((w) => (m.title || '').toLocaleLowerCase().includes(w));
    return threads.filter((m) => byTitle(m) || text?.has(m.threadId));
  }, [threads, query, text]);
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
      <p class="sr-only" role="status">
        {query.trim() ? t('searchResults', String(shown.length)) : ''}
      </p>
      {shown.length === 0 ? (
        <p class="empty-list">{threads.length === 0 ? t('noThreads') : t('noMatches')}</p>
      ) : (
        <ul class="thread-list" aria-label={t('threadsTitle')}>
          {shown.map((m) => (
            <ThreadRow
              key={m.threadId}
              meta={m}
              selected={m.threadId === selected}
              snippet={text?.get(m.threadId)}
            />
          ))}
        </ul>
      )}
    </main>
  );
}
