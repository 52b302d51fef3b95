/**
 * Content-script entry (a classic script, bundled as an IIFE by scripts/build-content-script.mjs).
 *
 * Installs one PageAgent per document and answers the service worker over
 * chrome.runtime.onMessage. Nothing listens to window.postMessage, and to two page DOM events
 * only, which carry no data and are ignored unless a live run uses the tab (dialog-pending.ts):
 * the page cannot talk to this script. While the user records a workflow in the tab, the
 * recorder (recorder.ts) also listens to the user's trusted input events. The script may be injected twice (manifest and on-demand
 * executeScript share the isolated world), so the second run returns early unless the first
 * belongs to an extension instance that was reloaded and lost its runtime.
 */
import * as z from 'zod/mini';
import { listenForPageDialogs } from './dialog-pending';
import { createBrowserEnv } from './env';
import { PageEnvelope } from '../src/protocol/page-messages';
import { createPageAgent } from './page-agent';
import { isTrustedSender } from './trusted-sender';
import { listenForRecording } from './recorder';

// Zod probes `new Function` for its JIT unless told not to; extension worlds forbid eval.
z.config({ jitless: true });

interface Installed {
  alive(): boolean;
}

const KEY = '__keelContentScript';
type KeelGlobal = typeof globalThis & { [KEY]?: Installed };

function runtimeAlive(): boolean {
  try {
    return Boolean(chrome.runtime?.id);
  } catch {
    return false;
  }
}

function install(): void {
  const g = globalThis as KeelGlobal;
  if (g[KEY]?.alive()) return;

  const env = createBrowserEnv(window, {
    shadowRootOf: (el) => {
      try {
        return chrome.dom?.openOrClosedShadowRoot?.(el as HTMLElement) ?? el.shadowRoot;
      } catch {
        return el.shadowRoot;
      }
    },
  });
  const agent = createPageAgent(env);
  const background = chrome.runtime.getManifest().background;
  const worker =
    background && 'service_worker' in background ? background.service_worker : undefined;
  const workerUrl = worker ? chrome.runtime.getURL(worker) : null;

  chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
    if (!isTrustedSender(sender, chrome.runtime.id, workerUrl)) return false;
    const envelope = PageEnvelope.safeParse(message);
    if (!envelope.success) return false;
    void agent.handle(envelope.data.request, { refBase: envelope.data.refBase }).then(sendResponse);
    return true;
  });
  listenForPageDialogs(document, runtimeAlive, (sender) =>
    isTrustedSender(sender, chrome.runtime.id, workerUrl),
  );
  // Recording a workflow by demonstration: idle until the worker arms this document.
  listenForRecording(
    {
      win: window,
      outline: () => agent.outline(),
      refOf: (el) => agent.refOf(el),
      owned: agent.owned,
    },
    runtimeAlive,
    (sender) => isTrustedSender(sender, chrome.runtime.id, workerUrl),
  );
  g[KEY] = { alive: runtimeAlive };
}

install();
