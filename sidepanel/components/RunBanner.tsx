import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { HandBackCard } from './HandBackCard';
import { Icon } from './icons';
import { usePanel, useThread } from './panel-context';

/**
 * A run that waits for the user: interrupted or over budget (Continue = run.resume), or
 * paused_uncertain after a restart mid-action (Retry / Mark done / Fail = run.resolveUncertain).
 * A working run offers Take over (run.takeOver, issue 28); a run the user holds shows the
 * hand-back card.
 */
export function RunBanner({ threadId }: { threadId: string }) {
  const panel = usePanel();
  const run = useThread(threadId, (th) => th?.run ?? null);
  const [busy, setBusy] = useState(false);
  if (!run) return null;
  const act = async (fn: () => Promise<boolean>) => {
    setBusy(true);
    await fn();
    setBusy(false);
  };
  let text: string;
  let actions: Array<{
    label: string;
    primary?: boolean;
    danger?: boolean;
    run: () => Promise<boolean>;
  }>;
  switch (run.state) {
    case 'streaming_model':
    case 'executing_tool':
      return (
        // Not a `.run-banner`: that one means the run waits for the user (and tests wait for it).
        <section class="take-over-bar" aria-label={t('runBannerLabel')}>
          {run.takeOverRequested ? (
            <p role="status">
              <Icon name="info" />
              <span>{t('runTakeOverPending')}</span>
            </p>
          ) : (
            <div class="run-actions">
              <button
                type="button"
                class="btn small"
                data-action="take-over"
                title={t('runTakeOverHint')}
                disabled={busy}
                onClick={() => void act(() => panel.takeOver(threadId))}
              >
                {t('runTakeOver')}
              </button>
            </div>
          )}
        </section>
      );
    case 'user_control':
      return <HandBackCard key={run.runId} threadId={threadId} runId={run.runId} />;
    case 'interrupted':
      text = t('runInterrupted');
      actions = [{ label: t('runContinue'), primary: true, run: () => panel.resumeRun(run.runId) }];
      break;
    case 'budget_paused':
      text = t('runBudgetPaused');
      actions = [{ label: t('runContinue'), primary: true, run: () => panel.resumeRun(run.runId) }];
      break;
    case 'paused_uncertain':
      text = t('runUncertain');
      actions = [
        {
          label: t('runRetry'),
          primary: true,
          run: () => panel.resolveUncertain(run.runId, 'retry'),
        },
        { label: t('runMarkDone'), run: () => panel.resolveUncertain(run.runId, 'mark_done') },
        { label: t('runFail'), danger: true, run: () => panel.resolveUncertain(run.runId, 'fail') },
      ];
      break;
    default:
      return null;
  }
  return (
    <section class={`run-banner state-${run.state}`} role="status" aria-label={t('runBannerLabel')}>
      <p>
        <Icon name="alert" />
        <span>{text}</span>
      </p>
      <div class="run-actions">
        {actions.map((a) => (
          <button
            key={a.label}
            type="button"
            class={`btn small${a.primary ? ' primary' : ''}${a.danger ? ' danger' : ''}`}
            disabled={busy}
            onClick={() => void act(a.run)}
          >
            {a.label}
          </button>
        ))}
      </div>
    </section>
  );
}
