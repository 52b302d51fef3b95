import type { ToolCallItem, ToolResultItem } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { useEngine } from './panel-context';

/** The skill a `visibility: 'skill'` call loads: `params.name` (get_skill), else the tool's label. */
export function skillNameOf(item: Pick<ToolCallItem, 'params' | 'label' | 'name'>): string {
  const p =
    item.params && typeof item.params === 'object' ? (item.params as Record<string, unknown>) : {};
  return typeof p.name === 'string' && p.name.trim() ? p.name.trim() : item.label || item.name;
}

/**
 * A skill in use (spec/003): its own card, not a tool card. It says which skill and what it is
 * for (the description the user imported with it); the skill's body is instructions for the
 * model and stays out of the thread.
 */
export function SkillCard({ item, result }: { item: ToolCallItem; result?: ToolResultItem }) {
  const name = skillNameOf(item);
  const description = useEngine(
    (s) => s.settings?.skills?.find((sk) => sk.name === name)?.description ?? null,
  );
  const failed = result ? !result.ok : item.state === 'rejected' || item.state === 'invalid';
  const status = failed
    ? t('skillFailed')
    : item.state === 'result'
      ? t('skillLoaded')
      : t('skillLoading');
  return (
    <div
      class={`skill-card${failed ? ' failed' : ''}`}
      data-item-id={item.id}
      data-state={item.state}
      aria-busy={!result && !failed ? 'true' : undefined}
    >
      <Icon name={failed ? 'alert' : 'book'} class="skill-icon" />
      <div class="skill-text">
        <p class="skill-head">
          <span class="skill-kind">{t('skillCardLabel')}</span>{' '}
          <strong class="skill-name">{name}</strong>
          <span class="sr-only"> · {status}</span>
        </p>
        <p class="skill-desc">{description || t('skillNoDescription')}</p>
        {failed && <p class="skill-status">{status}</p>}
      </div>
    </div>
  );
}
