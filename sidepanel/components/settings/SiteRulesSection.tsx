import { useState } from 'preact/hooks';
import type { PublicSettings, SiteRule } from '../../../src/protocol';
import { t, type MessageKey } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

const RULE_LABEL: Record<SiteRule, MessageKey> = {
  ask: 'ruleAsk',
  allow: 'ruleAllow',
  block: 'ruleBlock',
};
const RULES: SiteRule[] = ['ask', 'allow', 'block'];

/** "https://example.com/path" or "example.com" → "https://example.com"; null if not a web origin. */
export function toOrigin(input: string): string | null {
  const raw = input.trim();
  if (!raw) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

function RuleSelect({
  id,
  value,
  onChange,
  label,
}: {
  id: string;
  value: SiteRule;
  onChange: (r: SiteRule) => void;
  label: string;
}) {
  return (
    <select
      id={id}
      aria-label={label}
      value={value}
      onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as SiteRule)}
    >
      {RULES.map((r) => (
        <option key={r} value={r}>
          {t(RULE_LABEL[r])}
        </option>
      ))}
    </select>
  );
}

/** Per-site permissions: what "Always allow on this site" wrote, and manual allow / block rules. */
export function SiteRulesSection({ rules }: { rules: PublicSettings['siteRules'] }) {
  const panel = usePanel();
  const [status, save] = useSave();
  const [origin, setOrigin] = useState('');
  const [rule, setRule] = useState<SiteRule>('allow');
  const parsed = toOrigin(origin);
  const sorted = rules.slice().sort((a, b) => a.origin.localeCompare(b.origin));

  return (
    <section class="settings-section" aria-labelledby="set-sites">
      <h2 id="set-sites">{t('sitesTitle')}</h2>
      <p class="field-help">{t('sitesHelp')}</p>
      {sorted.length === 0 ? (
        <p class="empty-list">{t('noSiteRules')}</p>
      ) : (
        <ul class="site-rules">
          {sorted.map((r) => (
            <li key={r.origin} data-origin={r.origin}>
              <span class="site-origin">{r.origin}</span>
              <RuleSelect
                id={`rule-${r.origin}`}
                label={t('siteRuleFor', r.origin)}
                value={r.rule}
                onChange={(next) => void save(() => panel.setSiteRule(r.origin, next))}
              />
              <label class="check-row">
                <input
                  type="checkbox"
                  checked={r.pageToolsRead === true}
                  aria-label={t('pageToolsReadFor', r.origin)}
                  onChange={(e) =>
                    void save(() =>
                      panel.setSiteRule(
                        r.origin,
                        r.rule,
                        (e.currentTarget as HTMLInputElement).checked,
                      ),
                    )
                  }
                />
                {t('pageToolsRead')}
              </label>
              {r.rule !== 'ask' && (
                <button
                  type="button"
                  class="btn small"
                  aria-label={t('revokeFor', r.origin)}
                  onClick={() => void save(() => panel.setSiteRule(r.origin, 'ask'))}
                >
                  {t('revoke')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline-form"
        aria-label={t('addSiteRule')}
        onSubmit={(e) => {
          e.preventDefault();
          if (parsed)
            void save(() => panel.setSiteRule(parsed, rule)).then((ok) => ok && setOrigin(''));
        }}
      >
        <div class="field grow">
          <label for="site-origin">{t('siteOrigin')}</label>
          <input
            id="site-origin"
            placeholder="https://example.com"
            value={origin}
            onInput={(e) => setOrigin((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <RuleSelect id="site-new-rule" label={t('siteRule')} value={rule} onChange={setRule} />
        <button type="submit" class="btn small" disabled={!parsed}>
          {t('add')}
        </button>
      </form>
      <SaveStatusLine status={status} />
    </section>
  );
}
