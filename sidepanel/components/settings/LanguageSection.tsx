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
  return (
    <section class="settings-section" aria-labelledby="set-language">
      <h2 id="set-language">{t('languageTitle')}</h2>
      <div class="field">
        <label for="language">{t('language')}</label>
        <select
          id="language"
          value={locale ?? ''}
          onChange={(e) => {
            const v = (e.currentTarget as HTMLSelectElement).value;
            void save(() => panel.updateSettings({ locale: v === '' ? null : (v as Locale) }));
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
