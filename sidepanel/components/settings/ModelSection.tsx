import { useEffect, useState } from 'preact/hooks';
import type { ModelRef, PublicSettings } from '../../../src/protocol';
import { t } from '../../i18n';
import { usePanel } from '../panel-context';
import { modelSuggestions } from './presets';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

function ModelPicker({
  idPrefix,
  label,
  settings,
  value,
  onChange,
  allowNone,
}: {
  idPrefix: string;
  label: string;
  settings: PublicSettings;
  value: ModelRef | null;
  onChange: (v: ModelRef | null) => void;
  allowNone?: boolean;
}) {
  const provider = settings.providers.find((p) => p.id === value?.providerId);
  return (
    <fieldset class="model-picker">
      <legend>{label}</legend>
      <div class="field">
        <label for={`${idPrefix}-provider`}>{t('provider')}</label>
        <select
          id={`${idPrefix}-provider`}
          value={value?.providerId ?? ''}
          onChange={(e) => {
            const providerId = (e.currentTarget as HTMLSelectElement).value;
            if (!providerId) return onChange(null);
            const first =
              modelSuggestions(settings.providers.find((p) => p.id === providerId))[0] ?? '';
            onChange({ providerId, model: value?.providerId === providerId ? value.model : first });
          }}
        >
          {(allowNone || !value) && (
            <option value="">{allowNone ? t('sameAsDefault') : t('chooseProvider')}</option>
          )}
          {settings.providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label || p.id}
            </option>
          ))}
        </select>
      </div>
      {value && (
        <div class="field">
          <label for={`${idPrefix}-model`}>{t('model')}</label>
          <input
            id={`${idPrefix}-model`}
            list={`${idPrefix}-models`}
            value={value.model}
            spellcheck={false}
            onInput={(e) =>
              onChange({
                providerId: value.providerId,
                model: (e.currentTarget as HTMLInputElement).value,
              })
            }
          />
          <datalist id={`${idPrefix}-models`}>
            {modelSuggestions(provider).map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
        </div>
      )}
    </fieldset>
  );
}

/** Default model, task model (titles and small jobs) and the per-turn token budget. */
export function ModelSection({ settings }: { settings: PublicSettings }) {
  const panel = usePanel();
  const [model, setModel] = useState<ModelRef | null>(settings.defaultModel);
  const [taskModel, setTaskModel] = useState<ModelRef | null>(settings.taskModel);
  const [budget, setBudget] = useState(
    settings.tokenBudget === null ? '' : String(settings.tokenBudget),
  );
  const [status, save] = useSave();
  // Settings can change underneath (another panel, or the first provider picking a model).
  useEffect(() => setModel(settings.defaultModel), [settings.defaultModel]);
  useEffect(() => setTaskModel(settings.taskModel), [settings.taskModel]);
  useEffect(
    () => setBudget(settings.tokenBudget === null ? '' : String(settings.tokenBudget)),
    [settings.tokenBudget],
  );
  const budgetNumber = budget.trim() === '' ? null : Number(budget);
  const budgetOk = budgetNumber === null || (Number.isInteger(budgetNumber) && budgetNumber > 0);
  const modelOk = !model || model.model.trim().length > 0;

  const submit = (e: Event) => {
    e.preventDefault();
    void save(() =>
      panel.updateSettings({
        ...(model
          ? { defaultModel: { providerId: model.providerId, model: model.model.trim() } }
          : {}),
        taskModel:
          taskModel && taskModel.model.trim()
            ? { providerId: taskModel.providerId, model: taskModel.model.trim() }
            : null,
        tokenBudget: budgetNumber,
      }),
    );
  };

  return (
    <section class="settings-section" aria-labelledby="set-model">
      <h2 id="set-model">{t('modelTitle')}</h2>
      {settings.providers.length === 0 ? (
        <p class="field-help">{t('addProviderFirst')}</p>
      ) : (
        // noValidate: the budget is checked here (a whole number > 0). The browser's own check
        // would refuse anything off the spinner's 1,000 steps, e.g. 2500, with its own bubble.
        <form onSubmit={submit} noValidate>
          <ModelPicker
            idPrefix="default-model"
            label={t('defaultModel')}
            settings={settings}
            value={model}
            onChange={setModel}
          />
          <ModelPicker
            idPrefix="task-model"
            label={t('taskModel')}
            settings={settings}
            value={taskModel}
            onChange={setTaskModel}
            allowNone
          />
          <div class="field">
            <label for="token-budget">{t('tokenBudget')}</label>
            <input
              id="token-budget"
              type="number"
              step={1000}
              inputMode="numeric"
              placeholder={t('noLimit')}
              value={budget}
              aria-invalid={budgetOk ? undefined : 'true'}
              aria-describedby="token-budget-help"
              onInput={(e) => setBudget((e.currentTarget as HTMLInputElement).value)}
            />
            <p class="field-help" id="token-budget-help">
              {t('tokenBudgetHelp')}
            </p>
          </div>
          <button type="submit" class="btn primary small" disabled={!budgetOk || !modelOk}>
            {t('save')}
          </button>
          <SaveStatusLine status={status} />
        </form>
      )}
    </section>
  );
}
