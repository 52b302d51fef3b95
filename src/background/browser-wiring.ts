import type { ToolRegistry } from '../tools/registry';
import { createBrowserTools } from '../tools/browser';
import { createChromeBrowserHost } from './chrome-browser-host';

/**
 * Register the browser tools (L0–L2) with their chrome.* host. Called synchronously at the
 * worker's top level: the host registers its chrome.tabs / chrome.debugger listeners when created.
 */
export function installBrowserTools(registry: ToolRegistry): void {
  const { tools, lifecycle } = createBrowserTools(createChromeBrowserHost());
  for (const tool of tools) registry.register(tool);
  registry.addLifecycle(lifecycle);
}
