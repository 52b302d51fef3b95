/**
 * The browser tools (L0–L2) over an injected BrowserHost. The service worker calls
 * `createBrowserTools(createChromeBrowserHost())` once, registers `tools`, and registers
 * `lifecycle` so the debugger detaches when a run ends or is interrupted.
 */
import type { SecretSource } from '../../secrets/site-secrets';
import { redactingSecrets } from './secret-redaction';
import { ActionPictures } from './task-frames/action-pictures';
import { recordingFrames, type TaskRecorder } from './task-frames/task-recorder';
import type { AgentTool, ToolLifecycle } from '../types';
import { DebuggerSessions } from './debugger-sessions';
import { DevtoolsCapture } from './devtools/devtools-capture';
import type { BrowserToolDeps } from './deps';
import type { BrowserHost } from './host';
import { OutsideDialogs } from './dialogs/outside-dialogs';
import { PageClient } from './page-client';
import { guardRequests } from './guard/request-guard';
import { clickTool } from './tools/click';
import { consoleTool } from './tools/console';
import { dialogTool } from './tools/dialog';
import { findTool } from './tools/find';
import { getTextTool } from './tools/get-text';
import { goBackTool } from './tools/go-back';
import { hoverTool } from './tools/hover';
import { keyboardTool } from './tools/keyboard';
import { mouseTool } from './tools/mouse';
import { navigateTool } from './tools/navigate';
import { networkTool } from './tools/network';
import { pressKeyTool } from './tools/press-key';
import { screenshotTool } from './tools/screenshot';
import { scrollTool } from './tools/scroll';
import { selectTool } from './tools/select';
import { snapshotTool } from './tools/snapshot';
import { tabCloseTool } from './tools/tab-close';
import { tabOpenTool } from './tools/tab-open';
import { tabSwitchTool } from './tools/tab-switch';
import { tabsTool } from './tools/tabs';
import { typeTool } from './tools/type';
import { uploadFileTool } from './tools/upload-file';
import { waitForTool } from './tools/wait-for';

export type {
  BrowserHost,
  TabInfo,
  FrameInfo,
  CapturedImage,
  CaptureOptions,
  TabChange,
  DebuggerEvent,
} from './host';
export { HostError } from './host';
export type { BrowserToolDetails, HighlightBox } from './details';
export { untrustedPageContent, escapeUntrusted, UNTRUSTED_TAG } from './untrusted';

export interface BrowserToolsOptions {
  /** A small picture of the tab after each action, for the recording's frame (default true). */
  thumbnails?: boolean;
  /** Idle time before the debugger detaches (default 30 s). */
  debuggerIdleMs?: number;
  /** Site secrets (src/secrets): browser_type fills their placeholders; every result is redacted. */
  secrets?: SecretSource;
  /** Task recordings (issue 30): every acting tool queues a frame after its result. */
  frames?: TaskRecorder;
}

export interface BrowserTools {
  tools: AgentTool[];
  lifecycle: ToolLifecycle;
}

export function createBrowserTools(
  host: BrowserHost,
  options: BrowserToolsOptions = {},
): BrowserTools {
  const debuggers = new DebuggerSessions(host, options.debuggerIdleMs);
  // Pictures are taken only for the recording (nothing else waits for them).
  const pictures =
    options.frames && (options.thumbnails ?? true)
      ? new ActionPictures((ms) => host.sleep(ms))
      : undefined;
  const deps: BrowserToolDeps = {
    host,
    client: new PageClient(host),
    debuggers,
    devtools: new DevtoolsCapture(host, debuggers),
    ...(pictures ? { pictures } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
  };
  const typed = [
    // L0: perceive
    tabsTool(deps),
    snapshotTool(deps),
    getTextTool(deps),
    findTool(deps),
    screenshotTool(deps),
    // L1: act in the DOM, navigate, manage tabs
    navigateTool(deps),
    goBackTool(deps),
    clickTool(deps),
    typeTool(deps),
    selectTool(deps),
    scrollTool(deps),
    pressKeyTool(deps),
    hoverTool(deps),
    waitForTool(deps),
    tabOpenTool(deps),
    tabCloseTool(deps),
    tabSwitchTool(deps),
    // L2: act as the user (chrome.debugger)
    mouseTool(deps),
    keyboardTool(deps),
    uploadFileTool(deps),
    dialogTool(deps),
    // L2 reads: what DevTools shows (the debugger, but nothing the page can observe)
    consoleTool(deps),
    networkTool(deps),
  ];
  const outside = new OutsideDialogs(host, deps.debuggers);
  // The registry stores tools of every parameter type; each tool validates its own params.
  // Every write runs inside the navigation and request guard (request-guard.ts). A frame of the
  // recording is queued from the redacted result, after it is returned.
  const tools = typed.map((t) =>
    recordingFrames(
      redactingSecrets(outside.watch(guardRequests(t as AgentTool, host)), options.secrets),
      options.frames,
      pictures,
    ),
  ) as unknown as AgentTool[];
  const release = (runId: string) => {
    outside.releaseRun(runId);
    return deps.debuggers.releaseRun(runId);
  };
  // Handing the page to the user releases it too: no debugger bar while the user acts.
  const lifecycle: ToolLifecycle = {
    runEnded: release,
    runInterrupted: release,
    runHandedOver: release,
  };
  return { tools, lifecycle };
}
