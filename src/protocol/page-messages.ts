/**
 * The page-side wire contract: requests from the service worker to the content script of one
 * frame, validated with zod (the mini build: this ships into every frame of every page).
 *
 * Envelope: `{ channel: PAGE_CHANNEL, request }` → `PageResponse`. Refs here are local to the
 * frame (`e41`); the service worker strips the frame prefix (`f3e41` → frame 3, `e41`). Requests
 * that use a ref carry the `docId` of the snapshot the ref came from, so a ref from a previous
 * page can never hit an element of the new one.
 */
import * as z from 'zod/mini';
import type { OutlineLine } from '../../content-scripts/snapshot/outline-lines';

export const PAGE_CHANNEL = 'keel.page.v1';

const LocalRef = z.string().check(z.regex(/^e\d{1,9}$/));
const DocId = z.string().check(z.maxLength(64));
const Modifiers = z.array(z.enum(['Alt', 'Control', 'Meta', 'Shift']));
const int = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));

const refOp = { ref: LocalRef, docId: z.optional(DocId) };

export const PageRequest = z.discriminatedUnion('op', [
  z.object({ op: z.literal('ping') }),
  z.object({
    op: z.literal('snapshot'),
    mode: z.enum(['viewport', 'full']),
    incremental: z.boolean(),
    maxTokens: int(200, 200_000),
    textLimit: int(20, 10_000),
    includeUrls: z.boolean(),
    refPrefix: z.string().check(z.regex(/^(f\d{1,9})?$/)),
    page: z.optional(int(1, 10_000)),
    afterRef: z.optional(z.string().check(z.regex(/^(f\d{1,9})?e\d{1,9}$/))),
  }),
  z.object({ op: z.literal('get_text'), maxChars: int(100, 500_000), offset: int(0, 50_000_000) }),
  /** The document's Resource Timing entries (browser_network's requests from before it attached). */
  z.object({ op: z.literal('resource_timing'), limit: int(1, 1000) }),
  z.object({
    op: z.literal('find'),
    query: z.string().check(z.minLength(1), z.maxLength(500)),
    kind: z.enum(['text', 'element']),
    role: z.optional(z.string().check(z.maxLength(40))),
    limit: int(1, 200),
    refPrefix: z.string().check(z.regex(/^(f\d{1,9})?$/)),
  }),
  z.object({ op: z.literal('describe'), ...refOp }),
  // What a key press without a ref, or a click at coordinates, would act on (for approval).
  z.object({ op: z.literal('describe_focused') }),
  z.object({
    op: z.literal('describe_at'),
    x: z.number().check(z.gte(-100_000), z.lte(100_000)),
    y: z.number().check(z.gte(-100_000), z.lte(100_000)),
  }),
  // Which document receives input now: under a point (trusted mouse), or holding the focus (keys).
  z.object({
    op: z.literal('receiver_at'),
    x: z.number().check(z.gte(-100_000), z.lte(100_000)),
    y: z.number().check(z.gte(-100_000), z.lte(100_000)),
  }),
  z.object({ op: z.literal('receiver_focused') }),
  // Trusted input is coming to this tab: swallow it here unless this document's origin is cleared
  // (content-scripts/input-guard.ts). The disarm answers what this document received.
  z.object({
    op: z.literal('guard_arm'),
    token: z.string().check(z.minLength(1), z.maxLength(64)),
    cleared: z.boolean(),
    kinds: z.array(z.enum(['keys', 'pointer'])).check(z.minLength(1), z.maxLength(2)),
    ttlMs: int(0, 120_000),
  }),
  z.object({
    op: z.literal('guard_disarm'),
    token: z.string().check(z.minLength(1), z.maxLength(64)),
  }),
  z.object({ op: z.literal('locate'), ...refOp }),
  /** Start counting the page's changes now: trusted input (CDP) follows, then settle. */
  z.object({ op: z.literal('track') }),
  z.object({
    op: z.literal('locate_frame'),
    url: z.string().check(z.maxLength(8000)),
    width: int(0, 100_000),
    height: int(0, 100_000),
  }),
  z.object({ op: z.literal('history_back') }),
  /** The boxes of password fields in the viewport (recordings mask them: secret-boxes.ts). */
  z.object({ op: z.literal('secret_boxes') }),
  z.object({
    op: z.literal('click'),
    ...refOp,
    button: z.enum(['left', 'right', 'middle']),
    clickCount: int(1, 3),
    modifiers: Modifiers,
    force: z.boolean(),
  }),
  z.object({
    op: z.literal('type'),
    ...refOp,
    text: z.string().check(z.maxLength(100_000)),
    clear: z.boolean(),
    submit: z.boolean(),
    /** A site secret is in `text`: type only if this document is on this origin. */
    origin: z.optional(z.string().check(z.maxLength(2000))),
  }),
  z.object({
    op: z.literal('select'),
    ...refOp,
    values: z.array(z.string().check(z.maxLength(1000))).check(z.minLength(1), z.maxLength(100)),
  }),
  z.object({
    op: z.literal('scroll'),
    ref: z.optional(LocalRef),
    docId: z.optional(DocId),
    toRef: z.boolean(),
    text: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
    direction: z.enum(['up', 'down', 'left', 'right', 'top', 'bottom']),
    amount: z.number().check(z.gt(0), z.lte(100)),
  }),
  z.object({
    op: z.literal('press_key'),
    ref: z.optional(LocalRef),
    docId: z.optional(DocId),
    key: z.string().check(z.minLength(1), z.maxLength(40)),
    modifiers: Modifiers,
  }),
  z.object({ op: z.literal('hover'), ...refOp }),
  z.object({ op: z.literal('focus'), ...refOp }),
  z.object({
    op: z.literal('settle'),
    quietMs: int(0, 5000),
    timeoutMs: int(0, 30_000),
    ref: z.optional(LocalRef),
    docId: z.optional(DocId),
  }),
  z.object({
    op: z.literal('wait_for'),
    condition: z.enum([
      'text_visible',
      'text_gone',
      'ref_gone',
      'ref_visible',
      'network_quiet',
      'dom_quiet',
    ]),
    text: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
    ref: z.optional(LocalRef),
    docId: z.optional(DocId),
    timeoutMs: int(0, 60_000),
  }),
  z.object({
    op: z.literal('mark'),
    ...refOp,
    token: z.string().check(z.regex(/^[a-z0-9]{8,40}$/)),
  }),
  z.object({
    op: z.literal('set_files'),
    ...refOp,
    files: z
      .array(
        z.object({
          name: z.string().check(z.minLength(1), z.maxLength(255)),
          mimeType: z.string().check(z.maxLength(100)),
          dataBase64: z.string().check(z.maxLength(14_000_000)),
        }),
      )
      .check(z.minLength(1), z.maxLength(20)),
  }),
  z.object({ op: z.literal('unmark'), token: z.string().check(z.regex(/^[a-z0-9]{8,40}$/)) }),
  z.object({
    op: z.literal('highlight'),
    ...refOp,
    label: z.optional(z.string().check(z.maxLength(80))),
  }),
]);
export type PageRequest = z.infer<typeof PageRequest>;
export type PageOp = PageRequest['op'];

/** `refBase`: the highest ref earlier documents of this frame handed out (see RefRegistry.skipTo). */
export const PageEnvelope = z.object({
  channel: z.literal(PAGE_CHANNEL),
  request: z.unknown(),
  refBase: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000_000))),
});

export type PageErrorCode =
  | 'bad_request'
  | 'stale_ref'
  | 'not_actionable'
  | 'not_found'
  | 'timeout'
  | 'failed';

/** `refHigh`: the highest ref this document has handed out, for the next document's `refBase`. */
export type PageResponse<R = unknown> =
  | { ok: true; result: R; refHigh?: number }
  | { ok: false; error: { code: PageErrorCode; message: string }; refHigh?: number };

/** `secret_boxes`: the viewport's size and its password fields' boxes, in CSS px. */
export interface SecretBoxesResult {
  width: number;
  height: number;
  boxes: BoxReport[];
}

export interface BoxReport {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What an acting tool needs to know about an element, before (approval) and after (result). */
export interface ElementReport {
  ref: string;
  tag: string;
  role: string;
  name: string;
  /** The snapshot line of the element as it is now. */
  line: string;
  box: BoxReport;
  value?: string;
  href?: string;
  /** `<a download>` or a link to a file type browsers download. */
  download?: boolean;
  opensNewTab?: boolean;
  isFileInput?: boolean;
  /** The form this element submits has payment-card fields. */
  submitsPaymentForm?: boolean;
  /** How the element submits its form: clicked (submit buttons) or Enter in it (text fields). */
  submitsForm?: 'click' | 'enter';
  /** Form action (for cross-origin submits). */
  formAction?: string;
}

export interface CrossFrameReport {
  index: number;
  src: string;
  width: number;
  height: number;
}

export interface SnapshotResult {
  docId: string;
  frames: CrossFrameReport[];
  frameNonce: string;
  url: string;
  title: string;
  text: string;
  kind: 'full' | 'diff' | 'unchanged';
  truncated: boolean;
  refs: number;
  lines: number;
  estTokens: number;
  ms: number;
  scroll: { x: number; y: number; maxY: number; viewportWidth: number; viewportHeight: number };
  /** Full snapshots: the page of the outline shown, and the page count at this budget. */
  page?: number;
  pages?: number;
  /** The `afterRef` asked for is not on the page (the outline starts from the top). */
  refMissing?: boolean;
  /** Full snapshots: the shown lines as structure (snapshot/outline-lines.ts). */
  outline?: OutlineLine[];
}

export interface ActionAck {
  docId: string;
  url: string;
  element?: ElementReport;
  /** Human-readable account of what the action did immediately (value set, option chosen…). */
  note?: string;
}

export interface SettleResult {
  docId: string;
  url: string;
  title: string;
  quiet: boolean;
  mutations: number;
  element?: ElementReport | { gone: true };
  /** Dialogs, alerts and live regions that appeared during the wait. */
  appeared: string[];
  /**
   * A cross-document navigation this document started during the action and that had not
   * replaced it yet (a slow server): its destination. The caller waits for the new page.
   */
  navigating?: string;
  /** The action stopped when it ran, and why (e.g. the field became disabled when focused). */
  refused?: string;
}

export interface LocateResult {
  /** Centre point in the frame's viewport (CSS px) after scrolling the element into view. */
  x: number;
  y: number;
  box: BoxReport;
  element: ElementReport;
}

export interface FrameLocation {
  /** Content-box origin of the iframe in this frame's viewport. */
  x: number;
  y: number;
}

/** One Resource Timing entry as the content script reports it (content-scripts/resource-timing.ts, op `resource_timing`). */
export interface TimingRecord {
  name: string;
  initiatorType: string;
  /** ms since timeOrigin. */
  startTime: number;
  duration: number;
  responseStatus: number;
  transferSize: number;
  contentType: string;
}

export interface TimingSnapshot {
  /** Epoch ms of the document's time origin. */
  timeOrigin: number;
  entries: TimingRecord[];
}
