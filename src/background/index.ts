import { Engine, registerBuiltins, SettingsProviderResolver } from '../engine';
import { ENGINE_PORT_NAME, portConnection } from '../protocol';
import { Store } from '../store/store';
import { ToolRegistry } from '../tools/registry';
import { installBrowserTools } from './browser-wiring';
import { installMcp } from './mcp-wiring';
import { isTrustedEnginePort } from './port-guard';
import { startKeepalive } from './keepalive';

/**
 * The service worker: chrome.* wiring only. It builds the engine over IndexedDB, recovers
 * unfinished runs at every start (ARCHITECTURE.md recovery table), and serves the protocol on
 * the `engine` Port to the extension's own pages.
 */
const store = Store.open('keel');
const registry = new ToolRegistry();
const engine = new Engine({
  store,
  registry,
  providers: new SettingsProviderResolver(store, { fetch: (...args) => fetch(...args) }),
  browser: {
    async activeTabId() {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      return tab?.id;
    },
  },
});
registerBuiltins(engine);
installBrowserTools(registry);

// Listeners are registered synchronously at top level so a Port connect or alarm that woke the
// worker is delivered to them (MV3 rule).
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== ENGINE_PORT_NAME) return;
  if (!isTrustedEnginePort(port.sender, chrome.runtime.id)) {
    port.disconnect();
    return;
  }
  engine.connect(portConnection(port));
});

// An alarm wakes a stopped worker so unfinished runs resume even with the panel closed.
chrome.alarms.onAlarm.addListener(() => undefined);
void chrome.alarms.create('keel-wake', { periodInMinutes: 1 });

chrome.runtime.onInstalled.addListener(() => {
  void chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true }).catch(() => undefined);
});
// The toolbar button and its shortcut (manifest `commands._execute_action`, Alt+Shift+K) open the
// panel through the behaviour above. Chrome fires onClicked only if that behaviour is not in
// effect; then the click (a user gesture) opens the panel here.
chrome.action?.onClicked?.addListener((tab) => {
  if (tab.windowId !== undefined) void chrome.sidePanel?.open?.({ windowId: tab.windowId }).catch(() => undefined);
});

startKeepalive(() => engine.hasLiveRuns());
// Recovery waits for MCP tools to register (a recovering run's catalog may include them), but
// never longer than a few seconds.
void installMcp(engine, store).finally(() => engine.start());
