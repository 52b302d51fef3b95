import { t } from '../i18n';
import type { Panel } from '../state/panel';
import { ChatView } from './ChatView';
import { ConnectionBanner } from './ConnectionBanner';
import { PairingRequests } from './PairingRequests';
import { Header } from './Header';
import { PanelContext, useEngine, useLocale, useUi } from './panel-context';
import { SettingsView } from './settings/SettingsView';
import { ThreadList } from './ThreadList';
import { WorkflowsView } from './WorkflowsView';

function Screen() {
  const view = useUi((u) => u.view);
  const threadId = useUi((u) => u.selectedThreadId);
  const ready = useEngine((s) => s.ready);
  if (!ready) {
    return (
      <main class="boot" aria-busy="true">
        <p role="status">{t('connecting')}</p>
      </main>
    );
  }
  if (view === 'threads') return <ThreadList />;
  if (view === 'settings') return <SettingsView />;
  if (view === 'workflows') return <WorkflowsView />;
  return <ChatView threadId={threadId} />;
}

/** The side panel. Keyed by language so a switch re-renders every memoized piece once. */
export function App({ panel }: { panel: Panel }) {
  return (
    <PanelContext.Provider value={panel}>
      <Localized />
    </PanelContext.Provider>
  );
}

function Localized() {
  const locale = useLocale();
  return (
    <div class="app" key={locale}>
      <Header />
      <ConnectionBanner />
      <PairingRequests />
      <Screen />
    </div>
  );
}
