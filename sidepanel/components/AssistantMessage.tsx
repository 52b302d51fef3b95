import type { AssistantMessageItem, ProviderStopReason } from '../../src/protocol';
import { t, type MessageKey } from '../i18n';
import { useKeyed } from '../state/hooks';
import { Icon } from './icons';
import { Markdown } from './Markdown';
import { usePanel } from './panel-context';

/** Provider stop reasons that mean the text may be cut short. */
const WARNINGS: Partial<Record<ProviderStopReason, MessageKey>> = {
  max_tokens: 'stopMaxTokens',
  content_filter: 'stopContentFilter',
  refusal: 'stopRefusal',
};

/**
 * A partial answer kept at an interrupt. The engine marks it with `providerStopReason`, or a
 * `stopReason` field on newer builds: either one counts.
 */
export function isInterrupted(item: AssistantMessageItem): boolean {
  return (
    item.providerStopReason === 'interrupted' ||
    (item as { stopReason?: unknown }).stopReason === 'interrupted'
  );
}

export function StopWarning({ reason }: { reason: ProviderStopReason }) {
  const key = WARNINGS[reason];
  if (!key) return null;
  return (
    <p class="stop-warning" role="note">
      <Icon name="alert" />
      <span>
        {t(key)} {t('stopIncomplete')}
      </span>
    </p>
  );
}

/**
 * One assistant message. It is the only component subscribed to its item's live overlay, so a
 * streaming delta re-renders this message and nothing else in the thread.
 */
export function AssistantMessage({ item }: { item: AssistantMessageItem }) {
  const live = useKeyed(usePanel().live.store, item.id);
  const streaming = live !== undefined;
  const text = live ? live.text : item.text;
  const thinking = live ? live.thinking : (item.thinking ?? '');
  const interrupted = !streaming && isInterrupted(item);
  return (
    <div
      class={`msg assistant${interrupted ? ' interrupted' : ''}`}
      data-item-id={item.id}
      data-stop={interrupted ? 'interrupted' : undefined}
      aria-busy={streaming ? 'true' : undefined}
    >
      {thinking && (
        <details class="thinking">
          <summary>{streaming && !text ? t('thinkingLive') : t('thinking')}</summary>
          <div class="thinking-text">{thinking}</div>
        </details>
      )}
      {text ? (
        <Markdown text={text} streaming={streaming} />
      ) : streaming && !thinking ? (
        <p class="typing" role="status">
          <span class="sr-only">{t('generating')}</span>
          <span class="dot" aria-hidden="true" />
          <span class="dot" aria-hidden="true" />
          <span class="dot" aria-hidden="true" />
        </p>
      ) : null}
      {interrupted ? (
        <p class="stop-interrupted" role="note">
          <Icon name="stop" />
          <span>{t('stopInterrupted')}</span>
        </p>
      ) : (
        !streaming && <StopWarning reason={item.providerStopReason} />
      )}
    </div>
  );
}
