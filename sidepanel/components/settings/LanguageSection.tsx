import { useEffect, useState } from 'preact/hooks';
import type { Locale } from '../../../src/protocol';
import { t } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

/** Language names are written in their own language, so anyone can find theirs. */
const NATIVE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

export function LanguageSection({ locale }: { locale: Locale | null }) {
  const panel = usePanel();
  const [status, save] = useSave();
  // Shown at once: a controlled select would otherwise jump back until the ack.
  const [selected, setSelected] = useState(locale ?? '');
  useEffect(() => setSelected(locale ?? ''), [locale]);
  return (
    <section class="settings-section" aria-labelledby="set-language">
      <h2 id="set-language">{t('languageTitle')}</h2>
      <div class="field">
        <label for="language">{t('language')}</label>
        <select
          id="language"
          value={selected}
          onChange={(e) => {
            const v = (e.currentTarget as HTMLSelectElement).value;
            setSelected(v);
            void save(() => panel.updateSettings({ locale: v === '' ? null : (v as Locale) })).then(
              (ok) => ok || setSelected(locale ?? ''),
            );
          }}
        >
          <option value="">{t('languageBrowser')}</option>
          {(Object.keys(NATIVE_NAMES) as Locale[]).map((l) => (
            <option key={l} value={l} lang={l}>
              {NATIVE_NAMES[l]}
            </option>
          ))}
        </select>
      </div>
      <SaveStatusLine status={status} />
    </section>
  );
}
