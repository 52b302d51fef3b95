import { render } from 'preact';
import { ENGINE_PORT_NAME, PortTransport } from '../src/protocol';
import { App } from './components/App';
import { loadLocale } from './i18n';
import { EngineClient } from './state/engine-client';
import { stableClientId } from './state/ids';
import { Panel } from './state/panel';
import './styles.css';

/**
 * Side panel entry: one Panel per page. Each (re)connect opens a new Port; PortTransport validates
 * events at the boundary, so a malformed event is dropped instead of breaking the UI.
 */
async function boot(): Promise<void> {
  await loadLocale(null);
  const client = new EngineClient({
    clientId: stableClientId(sessionStorage),
    connect: () =>
      new PortTransport(chrome.runtime.connect({ name: ENGINE_PORT_NAME }), {
        validateEvents: true,
        onInvalidEvent: (raw) => console.warn('[keel] dropped an invalid engine event', raw),
      }),
  });
  const panel = new Panel({
    client,
    storage: sessionStorage,
    onSettings: (settings) => void loadLocale(settings.locale),
  });
  render(<App panel={panel} />, document.getElementById('app')!);
  panel.start();
}

void boot();
