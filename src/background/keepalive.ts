/**
 * Chrome stops an idle extension service worker after ~30 s; a long model stream or tool run
 * (or a recording, whose steps come from pages) must not be cut by that. While one is live, an extension API call every 20 s resets the idle
 * timer. (If Chrome stops the worker anyway, recovery resumes the run at the next start.)
 */
export function startKeepalive(isBusy: () => boolean): void {
  setInterval(() => {
    if (isBusy()) void chrome.runtime.getPlatformInfo().catch(() => undefined);
  }, 20_000);
}
