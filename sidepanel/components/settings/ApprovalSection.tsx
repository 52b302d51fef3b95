import { useEffect, useState } from 'preact/hooks';
import type { ApprovalMode } from '../../../src/protocol';
import { t } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

/**
 * Ask before every write action, act without asking where a site is already allowed, or approve
 * a plan once per task (src/gatekeeper/plan.ts).
 */
export function ApprovalSection({ mode }: { mode: ApprovalMode }) {
  const panel = usePanel();
  const [status, save] = useSave();
  // Shown at once: a controlled radio would otherwise jump back to the saved mode until the ack.
  const [selected, setSelected] = useState(mode);
  useEffect(() => setSelected(mode), [mode]);
  const choose = (approvalMode: ApprovalMode) => {
    if (approvalMode === selected) return;
    setSelected(approvalMode);
    void save(() => panel.updateSettings({ approvalMode })).then((ok) => ok || setSelected(mode));
  };
  return (
    <section class="settings-section" aria-labelledby="set-approval">
      <h2 id="set-approval">{t('approvalModeTitle')}</h2>
      <fieldset class="radio-group">
        <legend class="sr-only">{t('approvalModeTitle')}</legend>
        <label class="radio">
          <input
            type="radio"
            name="approval-mode"
            value="ask"
            checked={selected === 'ask'}
            onChange={() => choose('ask')}
          />
          <span>
            <strong>{t('approvalAsk')}</strong>
            <span class="field-help">{t('approvalAskHelp')}</span>
          </span>
        </label>
        <label class="radio">
          <input
            type="radio"
            name="approval-mode"
            value="act"
            checked={selected === 'act'}
            onChange={() => choose('act')}
          />
          <span>
            <strong>{t('approvalAct')}</strong>
            <span class="field-help">{t('approvalActHelp')}</span>
          </span>
        </label>
        <label class="radio">
          <input
            type="radio"
            name="approval-mode"
            value="plan"
            checked={selected === 'plan'}
            onChange={() => choose('plan')}
          />
          <span>
            <strong>{t('approvalPlan')}</strong>
            <span class="field-help">{t('approvalPlanHelp')}</span>
          </span>
        </label>
      </fieldset>
      <SaveStatusLine status={status} />
    </section>
  );
}
