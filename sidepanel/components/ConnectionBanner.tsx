import { t } from '../i18n';
import { Icon } from './icons';
import { useEngine } from './panel-context';

/** Shown while the Port to the engine is down; the client reconnects by itself. */
export function ConnectionBanner() {
  const connection = useEngine((s) => s.connection);
  const ready = useEngine((s) => s.ready);
  if (connection === 'open' || (connection === 'connecting' && !ready)) return null;
  return (
    <p class="connection-banner" role="status">
      <Icon name="spinner" />
      <span>{t('reconnecting')}</span>
    </p>
  );
}
