import { t } from '../../i18n';
import type { SaveStatus } from './use-save';

export function SaveStatusLine({ status }: { status: SaveStatus }) {
  if (status.kind === 'idle') return null;
  if (status.kind === 'error') {
    return (
      <p class="save-status error" role="alert">
        {t('saveFailed', status.message)}
      </p>
    );
  }
  return (
    <p class="save-status" role="status">
      {status.kind === 'saving' ? t('saving') : t('saved')}
    </p>
  );
}
