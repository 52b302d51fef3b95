import type { BranchPoint } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { usePanel } from './panel-context';

/**
 * Where history forks (an edited or regenerated message), step between the versions. Each sibling
 * carries a reachable leaf; selecting that leaf makes its branch the thread's current path.
 */
export function BranchSwitcher({ threadId, branch }: { threadId: string; branch: BranchPoint }) {
  const panel = usePanel();
  const index = Math.max(0, branch.childIds.indexOf(branch.selected));
  const count = branch.childIds.length;
  const go = (i: number) => {
    const leaf = branch.leafIds[i];
    if (leaf) void panel.selectBranch(threadId, leaf);
  };
  return (
    <nav class="branch-switcher" aria-label={t('branchNav')}>
      <button
        type="button"
        class="icon-btn"
        disabled={index === 0}
        aria-label={t('branchPrev')}
        onClick={() => go(index - 1)}
      >
        <Icon name="chevron-left" />
      </button>
      <span class="branch-pos">{t('branchPosition', index + 1, count)}</span>
      <button
        type="button"
        class="icon-btn"
        disabled={index >= count - 1}
        aria-label={t('branchNext')}
        onClick={() => go(index + 1)}
      >
        <Icon name="chevron-right" />
      </button>
    </nav>
  );
}
