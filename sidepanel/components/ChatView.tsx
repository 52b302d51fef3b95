import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';
import { Composer } from './Composer';
import { HintBar } from './HintBar';
import { MessageList } from './MessageList';
import { Onboarding } from './Onboarding';
import { useEngine, useThread } from './panel-context';
import { QueueList } from './QueueList';
import { RunBanner } from './RunBanner';
import { SaveWorkflow } from './SaveWorkflow';
import { ThreadOptions } from './ThreadOptions';
import { TodoCard } from './TodoCard';

/** Within this many pixels of the bottom, new content keeps the view pinned to the bottom. */
const STICK_PX = 48;

/**
 * Keep the newest content in view while the user is at the bottom; leave the scroll alone once they
 * scroll up to read. A ResizeObserver sees streaming growth without any per-delta code here.
 */
function useStickToBottom(
  scroller: { current: HTMLElement | null },
  content: { current: HTMLElement | null },
  threadId: string | null,
) {
  const stuck = useRef(true);
  useLayoutEffect(() => {
    stuck.current = true;
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [threadId]);
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner) return;
    const onScroll = () => {
      stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    let ro: ResizeObserver | null = null;
    if (typeof ResizeObserver !== 'undefined') {
      ro = new ResizeObserver(() => {
        if (stuck.current) el.scrollTop = el.scrollHeight;
      });
      ro.observe(inner);
    }
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro?.disconnect();
    };
  }, [threadId]);
}

function EmptyState() {
  return (
    <div class="empty-state">
      <h2>{t('emptyTitle')}</h2>
      <p>{t('emptyBody')}</p>
      <ul class="empty-keys">
        <li>{t('keysIdle')}</li>
        <li>{t('keysActiveLong')}</li>
      </ul>
    </div>
  );
}

export function ChatView({ threadId }: { threadId: string | null }) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const loaded = useThread(threadId, (th) => th?.loaded ?? false);
  const hasItems = useThread(threadId, (th) => (th?.path.length ?? 0) > 0);
  useStickToBottom(scroller, content, threadId);
  // First run: once seen without a provider, the guide stays until a thread opens (its last
  // step, the test message, runs after the provider is saved).
  const noProvider = useEngine((s) => (s.settings ? s.settings.providers.length === 0 : false));
  const firstRun = useRef(false);
  if (noProvider && !threadId) firstRun.current = true;
  if (threadId) firstRun.current = false;
  return (
    <main class="chat" aria-label={t('chatLabel')}>
      <div
        class="scroller"
        ref={scroller}
        tabIndex={0}
        role="region"
        aria-label={t('conversationLabel')}
      >
        <div ref={content}>
          {threadId && (loaded || hasItems) ? (
            <MessageList threadId={threadId} />
          ) : threadId ? (
            <p class="loading" role="status">
              {t('loadingThread')}
            </p>
          ) : firstRun.current ? (
            <Onboarding />
          ) : (
            <EmptyState />
          )}
        </div>
      </div>
      <div class="dock">
        {threadId && <RunBanner threadId={threadId} />}
        {threadId && <SaveWorkflow threadId={threadId} />}
        {threadId && <TodoCard threadId={threadId} />}
        {threadId && <QueueList threadId={threadId} />}
        {threadId && <ThreadOptions threadId={threadId} />}
        <HintBar />
        <Composer key={threadId ?? 'new'} threadId={threadId} />
      </div>
    </main>
  );
}
