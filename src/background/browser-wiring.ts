import type { ToolRegistry } from '../tools/registry';

/** Browser tools are registered here once the browser-tools module lands. */
export function installBrowserTools(_registry: ToolRegistry): void {}
