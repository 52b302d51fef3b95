import { useState } from 'preact/hooks';
import type { PublicSettings } from '../../../src/protocol';
import { t } from '../../i18n';
import { usePanel } from '../panel-context';
import { SaveStatusLine } from './SaveStatusLine';
import { useSave } from './use-save';

/** Imported skills: import a SKILL.md file, see each skill's description, remove it. */
export function SkillsSection({ skills }: { skills: NonNullable<PublicSettings['skills']> }) {
  const panel = usePanel();
  const [status, save] = useSave();
  const [last, setLast] = useState<string | null>(null);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    const content = await file.text();
    const ok = await save(async () => {
      const out = await panel.importSkill(content);
      const name = out.ok ? (out.result as { name?: string } | undefined)?.name : undefined;
      if (name) setLast(name);
      return out;
    });
    if (!ok) setLast(null);
  };

  return (
    <section class="settings-section" aria-labelledby="set-skills">
      <h2 id="set-skills">{t('skillsTitle')}</h2>
      <p class="field-help">{t('skillsHelp')}</p>
      {skills.length === 0 ? (
        <p class="empty-list">{t('noSkills')}</p>
      ) : (
        <ul class="skills-list">
          {skills.map((s) => (
            <li key={s.name} data-skill={s.name}>
              <div class="skill-text">
                <strong>{s.name}</strong>
                <span class="field-help">{s.description}</span>
              </div>
              <button
                type="button"
                class="btn small"
                aria-label={t('removeSkillFor', s.name)}
                onClick={() => void save(() => panel.removeSkill(s.name))}
              >
                {t('remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <label class="btn file-btn">
        {t('importSkill')}
        <input
          type="file"
          accept=".md,text/markdown,text/plain"
          class="sr-only"
          onChange={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            void onFile(input.files?.[0]).finally(() => (input.value = ''));
          }}
        />
      </label>
      {last && status.kind === 'saved' && <p role="status">{t('skillImported', last)}</p>}
      <SaveStatusLine status={status} />
    </section>
  );
}
