import { useState } from 'preact/hooks';
import type { PublicSettings } from '../../../src/protocol';
import { t, type MessageKey } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { toOrigin } from './SiteRulesSection';
import { useSave } from './use-save';

type Kind = 'text' | 'password' | 'totp';
const KINDS: Kind[] = ['password', 'text', 'totp'];
const KIND_LABEL: Record<Kind, MessageKey> = {
  text: 'secretKindText',
  password: 'secretKindPassword',
  totp: 'secretKindTotp',
};

/**
 * Site secrets (issue 28): a username, password or authenticator key per site. The model sees
 * only the placeholder listed here; a value, once saved, is never shown again (not even here).
 */
export function SecretsSection({
  secrets,
}: {
  secrets: NonNullable<PublicSettings['siteSecrets']>;
}) {
  const panel = usePanel();
  const [status, save] = useSave();
  const [origin, setOrigin] = useState('');
  const [name, setName] = useState('password');
  const [kind, setKind] = useState<Kind>('password');
  const [value, setValue] = useState('');
  const site = toOrigin(origin);
  return (
    <section class="settings-section" aria-labelledby="set-secrets">
      <h2 id="set-secrets">{t('secretsTitle')}</h2>
      <p class="field-help">{t('secretsHelp')}</p>
      {secrets.length === 0 ? (
        <p class="empty-list">{t('noSecrets')}</p>
      ) : (
        <ul class="site-secrets">
          {secrets.map((s) => (
            <li key={s.placeholder} data-placeholder={s.placeholder}>
              <code class="secret-placeholder">{s.placeholder}</code>
              <span class="secret-kind">{t(KIND_LABEL[s.kind])}</span>
              <button
                type="button"
                class="btn small"
                aria-label={t('removeSecret', s.placeholder)}
                onClick={() => void save(() => panel.removeSiteSecret(s.origin, s.name))}
              >
                {t('remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="secret-form"
        aria-label={t('addSecret')}
        onSubmit={(e) => {
          e.preventDefault();
          if (!site || !value) return;
          void save(() => panel.setSiteSecret(site, name.trim(), kind, value)).then((ok) => {
            // The value leaves the panel's memory once stored.
            if (ok) setValue('');
          });
        }}
      >
        <div class="field">
          <label for="secret-site">{t('siteOrigin')}</label>
          <input
            id="secret-site"
            placeholder="https://example.com"
            value={origin}
            onInput={(e) => setOrigin((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="secret-name">{t('secretName')}</label>
          <input
            id="secret-name"
            value={name}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="secret-kind">{t('secretKind')}</label>
          <select
            id="secret-kind"
            value={kind}
            onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as Kind)}
          >
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {t(KIND_LABEL[k])}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="secret-value">{t('secretValue')}</label>
          <input
            id="secret-value"
            type="password"
            autocomplete="off"
            value={value}
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="btn small" disabled={!site || !value || !name.trim()}>
          {t('add')}
        </button>
      </form>
      <SaveStatusLine status={status} />
    </section>
  );
}
