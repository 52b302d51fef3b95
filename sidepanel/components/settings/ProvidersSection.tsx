import { useState } from 'preact/hooks';
import type { PublicProvider } from '../../../src/protocol';
import { t } from '../../i18n';
import { Icon } from '../icons';
import { useEngine, usePanel } from '../panel-context';
import { freeProviderId, PROVIDER_PRESETS, validBaseURL } from './presets';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

const NO_PROVIDERS: PublicProvider[] = [];

/** An API key input that never shows a stored key: the field is empty and only ever written. */
function KeyInput({
  id,
  value,
  onInput,
  optional,
}: {
  id: string;
  value: string;
  onInput: (v: string) => void;
  optional?: boolean;
}) {
  return (
    <div class="field">
      <label for={id}>{optional ? t('apiKeyOptional') : t('apiKey')}</label>
      <input
        id={id}
        type="password"
        autocomplete="off"
        spellcheck={false}
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
    </div>
  );
}

function ProviderRow({ provider }: { provider: PublicProvider }) {
  const panel = usePanel();
  const [editingKey, setEditingKey] = useState(false);
  const [key, setKey] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [status, save] = useSave();
  const saveKey = async () => {
    const ok = await save(() =>
      panel.updateSettings({
        providers: [
          {
            id: provider.id,
            kind: provider.kind,
            baseURL: provider.baseURL,
            label: provider.label,
            apiKey: key,
          },
        ],
      }),
    );
    if (ok) {
      setKey('');
      setEditingKey(false);
    }
  };
  return (
    <li class="provider-row" data-provider-id={provider.id}>
      <div class="provider-head">
        <strong>{provider.label || provider.id}</strong>
        <span class="badge">{provider.kind}</span>
        <span class={`badge ${provider.hasApiKey ? 'ok' : ''}`}>
          {provider.hasApiKey ? t('keySaved') : t('noKey')}
        </span>
      </div>
      {provider.baseURL && <div class="provider-url">{provider.baseURL}</div>}
      {editingKey ? (
        <div class="inline-form">
          <KeyInput id={`key-${provider.id}`} value={key} onInput={setKey} />
          <button
            type="button"
            class="btn primary small"
            disabled={!key}
            onClick={() => void saveKey()}
          >
            {t('save')}
          </button>
          <button type="button" class="btn small" onClick={() => setEditingKey(false)}>
            {t('cancel')}
          </button>
        </div>
      ) : (
        <div class="row-actions">
          <button type="button" class="btn small" onClick={() => setEditingKey(true)}>
            {provider.hasApiKey ? t('replaceKey') : t('setKey')}
          </button>
          {confirmRemove ? (
            <>
              <button
                type="button"
                class="btn danger small"
                onClick={() =>
                  void save(() =>
                    panel.updateSettings({ providers: [{ id: provider.id, remove: true }] }),
                  )
                }
              >
                {t('confirmRemove')}
              </button>
              <button type="button" class="btn small" onClick={() => setConfirmRemove(false)}>
                {t('cancel')}
              </button>
            </>
          ) : (
            <button type="button" class="btn small" onClick={() => setConfirmRemove(true)}>
              {t('remove')}
            </button>
          )}
        </div>
      )}
      <SaveStatusLine status={status} />
    </li>
  );
}

function AddProvider({
  taken,
  needsDefault,
  onDone,
}: {
  taken: string[];
  needsDefault: boolean;
  onDone: () => void;
}) {
  const panel = usePanel();
  const [presetId, setPresetId] = useState(PROVIDER_PRESETS[0].id);
  const preset = PROVIDER_PRESETS.find((p) => p.id === presetId) ?? PROVIDER_PRESETS[0];
  const [label, setLabel] = useState(preset.label);
  const [baseURL, setBaseURL] = useState(preset.baseURL ?? '');
  const [key, setKey] = useState('');
  const [models, setModels] = useState('');
  const [vision, setVision] = useState(false);
  const [status, save] = useSave();
  const urlOk = !preset.baseURL || validBaseURL(baseURL);

  const choose = (id: string) => {
    const next = PROVIDER_PRESETS.find((p) => p.id === id) ?? PROVIDER_PRESETS[0];
    setPresetId(next.id);
    setLabel(next.label);
    setBaseURL(next.baseURL ?? '');
  };

  const add = async () => {
    const id = freeProviderId(preset.id, taken);
    const modelIds = models
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    // The first provider also becomes the chat model, so the user can start right away.
    const model = modelIds[0] ?? preset.defaultModel;
    const ok = await save(() =>
      panel.updateSettings({
        providers: [
          {
            id,
            kind: preset.kind,
            label: label.trim() || preset.label,
            baseURL: preset.baseURL ? baseURL.trim() : undefined,
            apiKey: key || undefined,
            models: modelIds.length
              ? modelIds.map((m) => (vision ? { id: m, vision: true } : { id: m }))
              : undefined,
          },
        ],
        ...(needsDefault && model ? { defaultModel: { providerId: id, model } } : {}),
      }),
    );
    if (ok) onDone();
  };

  return (
    <form
      class="add-form"
      aria-label={t('addProvider')}
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <div class="field">
        <label for="provider-preset">{t('providerType')}</label>
        <select
          id="provider-preset"
          value={presetId}
          onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value)}
        >
          {PROVIDER_PRESETS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="provider-label">{t('providerName')}</label>
        <input
          id="provider-label"
          value={label}
          onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      {preset.baseURL !== undefined && (
        <div class="field">
          <label for="provider-url">{t('baseURL')}</label>
          <input
            id="provider-url"
            type="url"
            value={baseURL}
            readOnly={!preset.editableURL}
            aria-invalid={urlOk ? undefined : 'true'}
            onInput={(e) => setBaseURL((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      )}
      <KeyInput id="provider-key" value={key} onInput={setKey} optional={preset.keyOptional} />
      {preset.kind === 'openai' && preset.id !== 'openai' && (
        <div class="field">
          <label for="provider-models">{t('providerModels')}</label>
          <input
            id="provider-models"
            placeholder="llama3.1, qwen2.5"
            value={models}
            onInput={(e) => setModels((e.currentTarget as HTMLInputElement).value)}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={vision}
              onChange={(e) => setVision((e.currentTarget as HTMLInputElement).checked)}
            />
            <span>{t('providerModelsVision')}</span>
          </label>
        </div>
      )}
      <p class="field-help">{t('apiKeyHelp')}</p>
      <div class="row-actions">
        <button
          type="submit"
          class="btn primary small"
          disabled={!urlOk || (!key && !preset.keyOptional)}
        >
          {t('add')}
        </button>
        <button type="button" class="btn small" onClick={onDone}>
          {t('cancel')}
        </button>
      </div>
      <SaveStatusLine status={status} />
    </form>
  );
}

/** Providers with write-only keys: the panel shows "key saved", never a key. */
export function ProvidersSection() {
  const providers = useEngine((s) => s.settings?.providers ?? NO_PROVIDERS);
  const defaultModel = useEngine((s) => s.settings?.defaultModel ?? null);
  const needsDefault = !defaultModel || !providers.some((p) => p.id === defaultModel.providerId);
  const [adding, setAdding] = useState(providers.length === 0);
  return (
    <section class="settings-section" aria-labelledby="set-providers">
      <h2 id="set-providers">{t('providersTitle')}</h2>
      {providers.length === 0 && <p class="field-help">{t('noProviders')}</p>}
      <ul class="provider-list">
        {providers.map((p) => (
          <ProviderRow key={p.id} provider={p} />
        ))}
      </ul>
      {adding ? (
        <AddProvider
          taken={providers.map((p) => p.id)}
          needsDefault={needsDefault}
          onDone={() => setAdding(false)}
        />
      ) : (
        <button type="button" class="btn small" onClick={() => setAdding(true)}>
          <Icon name="plus" />
          <span>{t('addProvider')}</span>
        </button>
      )}
    </section>
  );
}
