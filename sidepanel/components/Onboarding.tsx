import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../i18n';
import { usePanel } from './panel-context';
import { PROVIDER_PRESETS, validBaseURL, type ProviderPreset } from './settings/presets';
import { SaveStatusLine } from './settings/SaveStatusLine';
import { useSave } from './settings/use-save';
import { ANTHROPIC_MODELS, OPENAI_MODELS } from '../../src/providers/catalog';

/** The four ways in, each with the presets it offers (presets.ts holds their endpoints). */
const FAMILIES: Array<{ id: string; label: MessageKey; help: MessageKey; presets: string[] }> = [
  {
    id: 'anthropic',
    label: 'onboardAnthropic',
    help: 'onboardAnthropicHelp',
    presets: ['anthropic'],
  },
  { id: 'openai', label: 'onboardOpenAI', help: 'onboardOpenAIHelp', presets: ['openai'] },
  {
    id: 'compatible',
    label: 'onboardCompatible',
    help: 'onboardCompatibleHelp',
    presets: ['openrouter', 'custom'],
  },
  { id: 'local', label: 'onboardLocal', help: 'onboardLocalHelp', presets: ['ollama', 'lmstudio'] },
];

/** Example model ids for endpoints without a catalog (the field stays free text). */
const MODEL_HINTS: Record<string, string> = {
  openrouter: 'anthropic/claude-sonnet-4.5',
  ollama: 'llama3.1',
  lmstudio: 'qwen2.5-7b-instruct',
  custom: 'gpt-4o-mini',
};

type Step = 'provider' | 'connect' | 'model' | 'test';
const STEPS: Array<{ id: Step; label: MessageKey }> = [
  { id: 'provider', label: 'onboardStepProvider' },
  { id: 'connect', label: 'onboardStepKey' },
  { id: 'model', label: 'onboardStepModel' },
  { id: 'test', label: 'onboardStepTest' },
];

const presetById = (id: string): ProviderPreset =>
  PROVIDER_PRESETS.find((p) => p.id === id) ?? PROVIDER_PRESETS[0];

function modelChoices(preset: ProviderPreset): string[] {
  if (preset.kind === 'anthropic') return Object.keys(ANTHROPIC_MODELS);
  return preset.baseURL ? [] : Object.keys(OPENAI_MODELS);
}

/** This extension's origin, as OLLAMA_ORIGINS must list it. */
function extensionOrigin(): string {
  try {
    return globalThis.chrome?.runtime?.id
      ? `chrome-extension://${chrome.runtime.id}`
      : 'chrome-extension://*';
  } catch {
    return 'chrome-extension://*';
  }
}

/**
 * The first open with no provider: choose one, connect it (key, endpoint), pick a model, then
 * send a test message, which is a real first turn in a new thread. Every step can go back; the
 * settings are saved once, at the model step, through the same settings.update as Settings.
 */
export function Onboarding() {
  const panel = usePanel();
  const [step, setStep] = useState<Step>('provider');
  const [family, setFamily] = useState(FAMILIES[0].id);
  const fam = FAMILIES.find((f) => f.id === family) ?? FAMILIES[0];
  const [presetId, setPresetId] = useState(fam.presets[0]);
  const preset = presetById(presetId);
  const [baseURL, setBaseURL] = useState(preset.baseURL ?? '');
  const [key, setKey] = useState('');
  const [model, setModel] = useState(preset.defaultModel ?? '');
  const [status, save] = useSave();
  const [sending, setSending] = useState(false);
  const urlOk = !preset.baseURL || validBaseURL(baseURL);
  const choices = modelChoices(preset);

  const choosePreset = (id: string) => {
    const p = presetById(id);
    setPresetId(p.id);
    setBaseURL(p.baseURL ?? '');
    setModel(p.defaultModel ?? '');
  };
  const chooseFamily = (id: string) => {
    const f = FAMILIES.find((x) => x.id === id) ?? FAMILIES[0];
    setFamily(f.id);
    choosePreset(f.presets[0]);
  };

  const saveProvider = async () => {
    const id = preset.id;
    const custom = !!preset.baseURL;
    const ok = await save(() =>
      panel.updateSettings({
        providers: [
          {
            id,
            kind: preset.kind,
            label: preset.label,
            ...(custom ? { baseURL: baseURL.trim(), models: [{ id: model.trim() }] } : {}),
            ...(key ? { apiKey: key } : {}),
          },
        ],
        defaultModel: { providerId: id, model: model.trim() },
      }),
    );
    if (ok) {
      setKey('');
      setStep('test');
    }
  };

  const sendTest = async () => {
    setSending(true);
    await panel.sendMessage(null, { text: t('onboardTestMessage') });
    setSending(false);
  };

  const at = STEPS.findIndex((s) => s.id === step);
  return (
    <section class="onboarding" aria-labelledby="onboard-title">
      <h2 id="onboard-title">{t('onboardTitle')}</h2>
      <p class="field-help">{t('onboardIntro')}</p>
      <ol class="onboard-steps">
        {STEPS.map((s, i) => (
          <li
            key={s.id}
            class={i < at ? 'done' : i === at ? 'current' : ''}
            aria-current={i === at ? 'step' : undefined}
          >
            {t(s.label)}
          </li>
        ))}
      </ol>
      <form
        class="onboard-form"
        data-step={step}
        onSubmit={(e) => {
          e.preventDefault();
          if (step === 'provider') setStep('connect');
          else if (step === 'connect' && urlOk && (key || preset.keyOptional)) setStep('model');
          else if (step === 'model' && model.trim()) void saveProvider();
        }}
      >
        {step === 'provider' && (
          <fieldset class="onboard-choices">
            <legend>{t('onboardStepProvider')}</legend>
            {FAMILIES.map((f) => (
              <label key={f.id} class={`choice${f.id === family ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="onboard-family"
                  value={f.id}
                  checked={f.id === family}
                  onChange={() => chooseFamily(f.id)}
                />
                <span class="choice-text">
                  <strong>{t(f.label)}</strong>
                  <span class="choice-help">{t(f.help)}</span>
                </span>
              </label>
            ))}
          </fieldset>
        )}
        {step === 'connect' && (
          <>
            {fam.presets.length > 1 && (
              <div class="field">
                <label for="onboard-preset">{t('onboardPreset')}</label>
                <select
                  id="onboard-preset"
                  value={presetId}
                  onChange={(e) => choosePreset((e.currentTarget as HTMLSelectElement).value)}
                >
                  {fam.presets.map((id) => (
                    <option key={id} value={id}>
                      {presetById(id).label}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {preset.baseURL !== undefined && (
              <div class="field">
                <label for="onboard-url">{t('baseURL')}</label>
                <input
                  id="onboard-url"
                  type="url"
                  value={baseURL}
                  readOnly={!preset.editableURL}
                  aria-invalid={urlOk ? undefined : 'true'}
                  onInput={(e) => setBaseURL((e.currentTarget as HTMLInputElement).value)}
                />
              </div>
            )}
            <div class="field">
              <label for="onboard-key">
                {preset.keyOptional ? t('apiKeyOptional') : t('apiKey')}
              </label>
              <input
                id="onboard-key"
                type="password"
                autocomplete="off"
                spellcheck={false}
                value={key}
                onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
              />
              <p class="field-help">
                {preset.keyOptional ? t('onboardLocalKeyHelp') : t('apiKeyHelp')}
              </p>
            </div>
            {preset.id === 'ollama' && (
              <div class="onboard-note" role="note">
                <p>{t('onboardOllamaOrigins')}</p>
                <pre class="tool-pre">{`OLLAMA_ORIGINS=${extensionOrigin()} ollama serve`}</pre>
                <p class="field-help">{t('onboardOllamaOriginsMore')}</p>
              </div>
            )}
          </>
        )}
        {step === 'model' && (
          <div class="field">
            <label for="onboard-model">{t('onboardModel')}</label>
            {choices.length > 0 ? (
              <select
                id="onboard-model"
                value={model}
                onChange={(e) => setModel((e.currentTarget as HTMLSelectElement).value)}
              >
                {choices.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id="onboard-model"
                value={model}
                placeholder={MODEL_HINTS[preset.id] ?? ''}
                onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)}
              />
            )}
            <p class="field-help">
              {choices.length > 0 ? t('onboardModelHelp') : t('onboardModelFreeHelp')}
            </p>
          </div>
        )}
        {step === 'test' && (
          <div class="onboard-test">
            <p>{t('onboardSaved', preset.label, model)}</p>
            <p class="field-help">{t('onboardTestHelp')}</p>
          </div>
        )}
        <div class="row-actions">
          {step !== 'provider' && step !== 'test' && (
            <button
              type="button"
              class="btn small"
              onClick={() => setStep(STEPS[Math.max(0, at - 1)].id)}
            >
              {t('onboardBack')}
            </button>
          )}
          {step === 'test' ? (
            <button
              type="button"
              class="btn primary small"
              data-action="onboard-test"
              disabled={sending}
              onClick={() => void sendTest()}
            >
              {t('onboardSendTest')}
            </button>
          ) : (
            <button
              type="submit"
              class="btn primary small"
              data-action="onboard-next"
              disabled={
                (step === 'connect' && (!urlOk || (!key && !preset.keyOptional))) ||
                (step === 'model' && !model.trim())
              }
            >
              {step === 'model' ? t('onboardSave') : t('onboardNext')}
            </button>
          )}
        </div>
        <SaveStatusLine status={status} />
      </form>
    </section>
  );
}
