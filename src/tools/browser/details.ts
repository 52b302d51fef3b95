/** What browser tools put in `details` for the UI (never sent to the model). */
import type { OutlineLine } from '../../../content-scripts/snapshot/outline-lines';
import type { CapturedImage } from './host';

/**
 * A snapshot's shown lines as structure (content-scripts/snapshot/outline-lines.ts), for code
 * that reasons about the page (workflows): it never parses the model-facing text.
 */
export interface SnapshotOutline {
  /** The frame the snapshot read (0 = the page); refs in `lines` resolve through it. */
  frameId: number;
  url: string;
  title: string;
  lines: OutlineLine[];
}

export interface HighlightBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The box is relative to this frame's viewport (0 = the tab's viewport). */
  frameId: number;
}

export interface BrowserToolDetails {
  tabId?: number;
  frameId?: number;
  urlBefore?: string;
  urlAfter?: string;
  title?: string;
  /** The element acted on, as its snapshot line. */
  element?: string;
  /** The same element's role and accessible name, for the card's one-line summary. */
  target?: { role: string; name: string };
  highlight?: HighlightBox;
  /** A small JPEG of the visible tab after the action, when it was cheap to take. */
  thumbnail?: CapturedImage;
  /** Full screenshot (browser_screenshot), also shown when the model has no vision. */
  image?: CapturedImage;
  /** Snapshot statistics. */
  snapshot?: {
    lines: number;
    refs: number;
    estTokens: number;
    ms: number;
    kind: string;
    truncated: boolean;
  };
  /** browser_snapshot of the whole page or viewport (not a diff): the outline as structure. */
  outline?: SnapshotOutline;
  /**
   * Where an action's time went, in ms, phase by phase (page-action.ts): `prepare` (the tab, the
   * dialog guard), `act`, `settle` (the page's quiet wait), `report` (dialogs, the tab after),
   * `thumbnail`. For the benchmark's wall-time profile (docs/benchmarks.md); never sent to the model.
   */
  timing?: Record<string, number>;
  /** Anything else a tool wants the UI to show (tab lists, matches…). */
  info?: Record<string, unknown>;
}
