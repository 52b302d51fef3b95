import { t } from '../i18n';
import { Icon } from './icons';
import { usePanel, useUi } from './panel-context';

/** One transient message about the last action (a steer that went to the queue, an error). */
export function HintBar() {
  const panel = usePanel();
  const hint = useUi((u) => u.hint);
  if (!hint) return null;
  return (
    <div
      class={`hint ${hint.tone}`}
      role={hint.tone === 'error' ? 'alert' : 'status'}
      key={hint.id}
    >
      <Icon name={hint.tone === 'error' ? 'alert' : 'info'} />
      <span class="hint-text">{hint.text}</span>
      {hint.action === 'openSettings' && (
        <button type="button" class="btn small" onClick={() => panel.setView('settings')}>
          {t('openSettings')}
        </button>
      )}
      <button
        type="button"
        class="icon-btn"
        aria-label={t('dismiss')}
        onClick={() => panel.clearHint()}
      >
        <Icon name="x" />
      </button>
    </div>
  );
}
