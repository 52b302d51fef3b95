/**
 * Only the extension's own pages may drive the engine (security: a content script runs with the
 * extension's id but in a web page, and must never reach the engine Port). A Port is accepted
 * when its sender is this extension *and* its URL is one of this extension's pages.
 */
export function isTrustedEnginePort(
  sender: chrome.runtime.MessageSender | undefined,
  extensionId: string,
): boolean {
  if (!sender || sender.id !== extensionId) return false;
  const origin = `chrome-extension://${extensionId}`;
  const url = sender.url ?? '';
  if (!url.startsWith(`${origin}/`)) return false;
  if (sender.origin !== undefined && sender.origin !== origin) return false;
  return true;
}
