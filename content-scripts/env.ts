/**
 * What the page side needs from its surroundings. The extension entry fills it from chrome.* and
 * the real window; the test hook and unit tests fill it with what they have (happy-dom has no
 * layout, a plain page has no chrome.runtime).
 */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageEnv {
  /** The window whose document is snapshotted and acted on. */
  win: Window;
  /** Monotonic milliseconds (performance.now in the page). */
  now(): number;
  /** Open or closed shadow root (chrome.dom.openOrClosedShadowRoot in a content script). */
  shadowRootOf(el: Element): ShadowRoot | null;
  /**
   * Border box in the element's own viewport. Injected because happy-dom has no layout: unit
   * tests supply a fake geometry, Chromium uses getBoundingClientRect.
   */
  boxOf(el: Element): Box;
}

export function createBrowserEnv(
  win: Window,
  extra: Partial<Pick<PageEnv, 'shadowRootOf'>> = {},
): PageEnv {
  return {
    win,
    now: () => win.performance.now(),
    shadowRootOf: extra.shadowRootOf ?? ((el) => el.shadowRoot),
    boxOf: (el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    },
  };
}
