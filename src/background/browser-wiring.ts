import type { ToolRegistry } from '../tools/registry';
import type { BrowserHost } from '../tools/browser/host';
import type { SecretSource } from '../secrets/site-secrets';
import { createBrowserTools } from '../tools/browser';
import type { TaskRecorder } from '../tools/browser/task-frames/task-recorder';
import { createChromeBrowserHost } from './chrome-browser-host';

/**
 * Register the browser tools (L0–L2) with their chrome.* host (the recorder shares it). Called synchronously at the worker's top level: the host registers its
 * chrome.tabs / chrome.debugger listeners when created.
 */
export function installBrowserTools(
  registry: ToolRegistry,
  host: BrowserHost = createChromeBrowserHost(),
  secrets?: SecretSource,
  frames?: TaskRecorder,
): BrowserHost {
  const { tools, lifecycle } = createBrowserTools(host, {
    ...(secrets ? { secrets } : {}),
    ...(frames ? { frames } : {}),
  });
  for (const tool of tools) registry.register(tool);
  registry.addLifecycle(lifecycle);
  return host;
}
