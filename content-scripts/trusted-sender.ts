/**
 * Only the extension's own service worker may drive the page side. Other content scripts of this
 * extension (sender.tab set), extension pages such as the side panel (a different URL) and, of
 * course, the page itself (which cannot reach chrome.runtime.onMessage at all) are ignored.
 */
export interface SenderLike {
  id?: string;
  tab?: unknown;
  url?: string;
  origin?: string;
}

export function isTrustedSender(
  sender: SenderLike,
  extensionId: string,
  workerUrl: string | null,
): boolean {
  if (!extensionId || sender.id !== extensionId) return false;
  if (sender.tab !== undefined) return false;
  if (sender.url !== undefined && workerUrl !== null && sender.url !== workerUrl) return false;
  return true;
}
