import { t } from '../i18n';
import { useEngine, usePanel, useThread, useUi } from './panel-context';

/**
 * Per-conversation options: "Plan first" (a planning round without tools before acting) and the
 * skills enabled for this conversation. Collapsed by default to keep the dock small.
 */
export function ThreadOptions({ threadId }: { threadId: string }) {
  const panel = usePanel();
  const planFirst = useThread(threadId, (th) => th?.meta?.planFirst ?? false);
  const enabled = useThread(threadId, (th) => th?.meta?.enabledSkills ?? []);
  const skills = useEngine((s) => s.settings?.skills ?? []);
  const compact = useUi((u) => u.compactReads);
  const toggleSkill = (name: string, on: boolean) => {
    const next = on ? [...new Set([...enabled, name])] : enabled.filter((n) => n !== name);
    void panel.setThreadOptions(threadId, { enabledSkills: next });
  };
  return (
    <details class="thread-options">
      <summary>{t('threadOptions')}</summary>
      <label class="check-row" title={t('planFirstHelp')}>
        <input
          type="checkbox"
          checked={planFirst}
          onChange={(e) =>
            void panel.setThreadOptions(threadId, {
              planFirst: (e.currentTarget as HTMLInputElement).checked,
            })
          }
        />
        <span>{t('planFirst')}</span>
      </label>
      <p class="field-help">{t('planFirstHelp')}</p>
      <label class="check-row">
        <input
          type="checkbox"
          checked={compact}
          data-option="compact-reads"
          onChange={(e) => panel.setCompactReads((e.currentTarget as HTMLInputElement).checked)}
        />
        <span>{t('compactReads')}</span>
      </label>
      {skills.length > 0 && (
        <fieldset class="skill-toggles">
          <legend>{t('enabledSkills')}</legend>
          {skills.map((s) => (
            <label key={s.name} class="check-row">
              <input
                type="checkbox"
                checked={enabled.includes(s.name)}
                onChange={(e) => toggleSkill(s.name, (e.currentTarget as HTMLInputElement).checked)}
              />
              <span>{s.name}</span>
            </label>
          ))}
        </fieldset>
      )}
    </details>
  );
}
