import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { toOrigin } from './SiteRulesSection';
import { useSave } from './use-save';

/**
 * Sites the user marked private, beside the site rules: Keel records no frame of a task there
 * (issue 30). The list is sent whole (settings.update `privateSites`).
 */
export function PrivateSitesSection({ sites }: { sites: readonly string[] }) {
  const panel = usePanel();
  const [status, save] = useSave();
  const [origin, setOrigin] = useState('');
  const parsed = toOrigin(origin);
  const put = (list: string[]) => save(() => panel.updateSettings({ privateSites: list }));
  return (
    <section class="settings-section" aria-labelledby="set-private">
      <h2 id="set-private">{t('privateSitesTitle')}</h2>
      <p class="field-help">{t('privateSitesHelp')}</p>
      {sites.length === 0 ? (
        <p class="empty-list">{t('privateSitesNone')}</p>
      ) : (
        <ul class="site-rules">
          {sites.map((o) => (
            <li key={o} data-private-origin={o}>
              <span class="site-origin">{o}</span>
              <button
                type="button"
                class="btn small"
                aria-label={t('privateSitesRemoveFor', o)}
                onClick={() => void put(sites.filter((x) => x !== o))}
              >
                {t('privateSitesRemove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline-form"
        aria-label={t('privateSitesAdd')}
        onSubmit={(e) => {
          e.preventDefault();
          if (parsed) void put([...sites, parsed]).then((ok) => ok && setOrigin(''));
        }}
      >
        <div class="field grow">
          <label for="private-origin">{t('siteOrigin')}</label>
          <input
            id="private-origin"
            placeholder="https://example.com"
            value={origin}
            onInput={(e) => setOrigin((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="btn small" disabled={!parsed} data-action="add-private-site">
          {t('privateSitesAdd')}
        </button>
      </form>
      <SaveStatusLine status={status} />
    </section>
  );
}
