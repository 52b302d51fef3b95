import { Engine, registerBuiltins, SettingsProviderResolver } from '../engine';
import { ENGINE_PORT_NAME, portConnection } from '../protocol';
import { Store } from '../store/store';
import { ToolRegistry } from '../tools/registry';
import { PageTools } from '../tools/page/page-tools';
import { installBrowserTools } from './browser-wiring';
import { createChromeBrowserHost } from './chrome-browser-host';
import { installMcp } from './mcp-wiring';
import { installBridgeLink } from './bridge-wiring';
import { createTaskRecorder } from './task-frames-wiring';
import type { SecretSource } from '../secrets/site-secrets';
import { installRecorder } from './recording-wiring';
import { isTrustedEnginePort } from './port-guard';
import { startKeepalive } from './keepalive';
import { WorkflowScheduler, type SchedulerText } from './workflow-scheduler';

/**
 * The service worker: chrome.* wiring only. It builds the engine over IndexedDB, recovers
 * unfinished runs at every start (ARCHITECTURE.md recovery table), and serves the protocol on
 * the `engine` Port to the extension's own pages.
 */
const store = Store.open('keel');
const registry = new ToolRegistry();
const browserHost = createChromeBrowserHost();
const recorder = installRecorder(browserHost);
// Tools pages offer (WebMCP), listed from the run's tab before each model call.
const pageTools = new PageTools({
  host: browserHost,
  registry,
  onSkipped: (origin, name, reason) =>
    console.warn(`[keel] page tool "${name}" of ${origin} left out: ${reason}`),
});
const engine = new Engine({
  store,
  registry,
  providers: new SettingsProviderResolver(store, { fetch: (...args) => fetch(...args) }),
  browser: {
    async activeTabId() {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      return tab?.id;
    },
    // Handing the page to the user and back (issue 28): the model is told the URL and title only.
    async tabLook(tabId) {
      const tab = await chrome.tabs.get(tabId).catch(() => undefined);
      return tab ? { url: tab.url ?? tab.pendingUrl ?? '', title: tab.title ?? '' } : undefined;
    },
    recorder,
    pageTools: (tabId) => pageTools.discover(tabId),
    frames: store.frames,
  },
});
registerBuiltins(engine);
// Site secrets: browser_type reads a value at the moment it types it; nothing else does.
const siteSecrets: SecretSource = {
  list: async () => (await store.settings.get()).siteSecrets ?? [],
  value: async (origin, name) => {
    const s = ((await store.settings.get()).siteSecrets ?? []).find(
      (x) => x.origin === origin && x.name === name,
    );
    return s ? store.credentials.getSecret(s.credentialId) : null;
  },
  now: () => Date.now(),
};
// Every task is recorded (issue 30), except on the sites the user marked private.
installBrowserTools(
  registry,
  browserHost,
  siteSecrets,
  createTaskRecorder(browserHost, store, siteSecrets),
);

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

// Workflow schedules (chrome.alarms; reconciled with the workflow list at every start, so a
// schedule survives a browser restart even if Chrome dropped its alarm).
const schedulerText: SchedulerText = {
  needsApproval: (n) => chrome.i18n.getMessage('workflowNeedsApproval', [n]),
  needsCheck: (n) => chrome.i18n.getMessage('workflowNeedsCheck', [n]),
  succeeded: (n, r, s) => chrome.i18n.getMessage('workflowSucceeded', [n, String(r), String(s)]),
  failed: (n, why) => chrome.i18n.getMessage('workflowFailed', [n, why]),
};
// Notifications need an icon: the extension's own, from the package root.
const NOTIFY_ICON = chrome.runtime.getURL('icons/icon-128.png');
const NOTICE_MARKS = 'keel.workflowNotices';
const scheduler = new WorkflowScheduler({
  engine,
  alarms: chrome.alarms,
  notifier: {
    notify: (id, title, message) =>
      chrome.notifications?.create(id, { type: 'basic', iconUrl: NOTIFY_ICON, title, message }),
  },
  now: () => Date.now(),
  // The end-of-run notifications already shown (a restarted worker does not show them again).
  marks: {
    load: async () => {
      const got = await chrome.storage.local.get(NOTICE_MARKS);
      const keys = got[NOTICE_MARKS];
      return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
    },
    save: (keys) => chrome.storage.local.set({ [NOTICE_MARKS]: keys }),
  },
  text: schedulerText,
  log: (msg) => console.warn(`[keel] ${msg}`),
});
scheduler.start();

// An alarm wakes a stopped worker so unfinished runs resume even with the panel closed; workflow
// alarms also start their run.
chrome.alarms.onAlarm.addListener((alarm) => scheduler.onAlarm(alarm));
void chrome.alarms.create('keel-wake', { periodInMinutes: 1 });

chrome.runtime.onInstalled.addListener(() => {
  void chrome.sidePanel
    ?.setPanelBehavior?.({ openPanelOnActionClick: true })
    .catch(() => undefined);
});
// The toolbar button and its shortcut (manifest `commands._execute_action`, Alt+Shift+K) open the
// panel through the behaviour above. Chrome fires onClicked only if that behaviour is not in
// effect; then the click (a user gesture) opens the panel here.
chrome.action?.onClicked?.addListener((tab) => {
  if (tab.windowId !== undefined)
    void chrome.sidePanel?.open?.({ windowId: tab.windowId }).catch(() => undefined);
});

// A recording keeps the worker up too: a step sent by a page that is navigating away cannot
// wait for a stopped worker to start.
startKeepalive(() => engine.hasLiveRuns() || recorder.recording);
// Recovery waits for MCP tools to register (a recovering run's catalog may include them), but
// never longer than a few seconds.
// Keel as an MCP server: the link to local bridges starts once the engine serves ops.
void installMcp(engine, store)
  .finally(() => engine.start())
  .then(() => installBridgeLink(engine, store));
