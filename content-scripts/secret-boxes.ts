/**
 * Where the page shows secrets right now, for the recording of a task (issue 30): the viewport
 * boxes of password fields, including ones a "show password" button turned into text (their
 * `autocomplete` still says so), in this document and its open shadow roots. The service worker
 * paints over these boxes before a frame is stored: a recording never shows a password.
 */
import type { SecretBoxesResult } from '../src/protocol/page-messages';

const SECRET_FIELDS =
  'input[type=password], input[autocomplete~="current-password"], input[autocomplete~="new-password"], input[autocomplete~="one-time-code"]';
/** Enough for any real form; a page cannot make the answer unbounded. */
const MAX_BOXES = 50;

export function secretBoxes(win: Window): SecretBoxesResult {
  const boxes: SecretBoxesResult['boxes'] = [];
  const visit = (root: Document | ShadowRoot) => {
    for (const el of root.querySelectorAll(SECRET_FIELDS)) {
      if (boxes.length >= MAX_BOXES) return;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      if (r.bottom < 0 || r.right < 0 || r.top > win.innerHeight || r.left > win.innerWidth)
        continue;
      boxes.push({ x: r.x, y: r.y, width: r.width, height: r.height });
    }
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) visit(host.shadowRoot);
  };
  visit(win.document);
  return { width: win.innerWidth, height: win.innerHeight, boxes };
}
