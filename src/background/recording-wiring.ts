import {
  RECORD_ARM_MESSAGE,
  RECORDING_SNAPSHOT,
  RECORD_PORT,
  RECORD_STEP_MESSAGE,
} from '../../content-scripts/recorder';
import type { BrowserHost } from '../tools/browser/host';
import { PageClient } from '../tools/browser/page-client';
import type { SnapshotResult } from '../protocol/page-messages';
import { outlineOf } from '../workflows/outline';
import { RecordedStepSchema } from '../workflows/recording/recorded-step';
import { Recorder, type RecordingState } from '../workflows/recording/recorder';

/** Session storage key of the recording (survives a worker restart, not a browser restart). */
const STATE_KEY = 'keel.recording';

/**
 * The chrome.* side of recording a demonstration (src/workflows/recording/recorder.ts): arming
 * the tab's frames, the steps their content scripts send, the tab's navigations and its closing.
 * Listeners are registered synchronously at the worker's top level (MV3: a message that woke the
 * worker must find them).
 */
export function installRecorder(host: BrowserHost): Recorder {
  const pages = new PageClient(host);
  const recorder = new Recorder({
    async tabUrl(tabId) {
      try {
        return (await host.getTab(tabId)).url;
      } catch {
        return undefined;
      }
    },
    async arm(tabId, recordingId) {
      const label = chrome.i18n.getMessage('recordingIndicator') || 'Recording for Keel';
      const message = { kind: RECORD_ARM_MESSAGE, recordingId, label };
      const frames = await host.listFrames(tabId).catch(() => [{ frameId: 0 }]);
      let armedTop = false;
      for (const { frameId } of frames) {
        const send = () => host.sendToFrame(tabId, frameId, message, { timeoutMs: 3000 });
        try {
          await send();
        } catch {
          if (recordingId === null) continue;
          // A page open before Keel was installed, or reloaded extension: inject, then arm.
          try {
            await host.injectContentScript(tabId, frameId);
            await send();
          } catch (e) {
            if (frameId === 0) throw e;
            continue;
          }
        }
        if (frameId === 0) armedTop = true;
      }
      if (recordingId !== null && !armedTop) throw new Error('the page did not answer');
    },
    async finalPage(tabId) {
      const snap = await pages.call<SnapshotResult>(tabId, 0, {
        op: 'snapshot',
        ...RECORDING_SNAPSHOT,
      });
      const o = outlineOf({
        frameId: 0,
        url: snap.url,
        title: snap.title,
        lines: snap.outline ?? [],
      });
      // Only what the page shows as text: no control values are kept.
      return { url: o.url, texts: o.texts, headingTexts: o.headingTexts };
    },
    load: () => host.sessionGet<RecordingState>(STATE_KEY),
    save: async (state) => {
      if (state) await host.sessionSet(STATE_KEY, state);
      else await chrome.storage.session.remove(STATE_KEY);
    },
    newId: () => `rec_${crypto.randomUUID()}`,
    now: () => Date.now(),
  });

  // Only Keel's own content script (sender.id) in a tab's frame; a page cannot open this Port
  // (no externally_connectable), other extensions arrive on onConnectExternal. The tab and frame
  // are Chrome's, never the message's.
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== RECORD_PORT) return;
    const tabId = port.sender?.tab?.id;
    const frameId = port.sender?.frameId;
    if (port.sender?.id !== chrome.runtime.id || tabId === undefined || frameId === undefined) {
      port.disconnect();
      return;
    }
    port.onMessage.addListener((message: unknown) => {
      const m = message as { kind?: unknown; recordingId?: unknown; step?: unknown } | null;
      if (m?.kind !== RECORD_STEP_MESSAGE || typeof m.recordingId !== 'string') return;
      const step = RecordedStepSchema.safeParse(m.step);
      if (step.success) void recorder.step(tabId, frameId, m.recordingId, step.data);
    });
  });
  // A worker that starts while a recording runs picks it up (keepalive reads `recording`).
  void recorder.status();
  host.onTabChanged((change) => {
    if (change.url !== undefined) void recorder.navigated(change.tabId, change.url);
    if (change.status === 'complete') void recorder.loaded(change.tabId);
  });
  host.onTabRemoved((tabId) => void recorder.tabClosed(tabId));
  return recorder;
}
