/**
 * The receiver of input at the instant of dispatch (docs/permissions.md "Receiver checks at
 * dispatch"). Before each trusted mouse event the exact viewport point is hit-tested, and before
 * each key the focus is followed, through shadow roots and frames, down to the document that will
 * receive it; that document's origin is what `ctx.gate` judges. A frame the walk cannot look into
 * (another origin, in or out of process) is asked through its own content script, found by its
 * place in the frame tree (`window.frames` indexes from the top: the browser keeps them, a page
 * cannot forge them; chrome.runtime.getFrameId is not available to content scripts here).
 */
import type { ReceiverReport } from '../../../../content-scripts/actions/receiver';
import type { HeldEffect, ReceiverGate, ToolTarget } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { Point } from './cdp-input';

/** Frames nested deeper than this are not followed: the input is held as unknown. */
const MAX_FRAME_HOPS = 8;
const PROBE_TIMEOUT_MS = 3000;

export interface InputReceiver {
  target: ToolTarget;
  /** "the page http://a.test" / "a frame from http://b.test (in http://a.test)". */
  where: string;
}

const WEB = /^https?:/;

/**
 * The judged target of a receiving document. A frame of another origin is its own site (its rule,
 * its approval), with the top page kept for the card; a document without a URL of its own
 * (about:blank, srcdoc) is judged on the origin it inherited, and an opaque one (sandboxed) on
 * nothing: input there is never delivered, since no approval could name it.
 */
export function receiverTarget(
  tabId: number,
  top: Pick<ReceiverReport, 'origin' | 'url'>,
  leaf: Pick<ReceiverReport, 'origin' | 'url' | 'element'> | undefined,
  frameId?: number,
): InputReceiver {
  const topTarget: ToolTarget = {
    tabId,
    url: WEB.test(top.url) || top.origin === 'null' ? top.url : `${top.origin}/`,
    origin: top.origin === 'null' ? undefined : top.origin,
  };
  if (!leaf) {
    return {
      target: {
        ...topTarget,
        ...(frameId !== undefined ? { frameId } : {}),
        topUrl: top.url,
        topOrigin: top.origin,
        origin: undefined,
        forbidden: 'the input would land in an embedded frame Keel cannot inspect',
      },
      where: `an embedded frame of ${top.origin} that Keel cannot inspect`,
    };
  }
  const element = leaf.element ? { element: leaf.element } : {};
  if (leaf.origin === 'null') {
    return {
      target: {
        ...topTarget,
        ...(frameId !== undefined ? { frameId } : {}),
        origin: undefined,
        forbidden: 'the input would land in a sandboxed document with no origin Keel can judge',
      },
      where: `a sandboxed frame in ${top.origin}`,
    };
  }
  if (leaf.origin === top.origin && top.origin !== 'null')
    return { target: { ...topTarget, ...element }, where: `the page ${top.origin}` };
  return {
    target: {
      tabId,
      ...(frameId !== undefined ? { frameId } : {}),
      url: WEB.test(leaf.url) ? leaf.url : `${leaf.origin}/`,
      origin: leaf.origin,
      topUrl: top.url,
      topOrigin: top.origin,
      ...element,
    },
    where: `a frame from ${leaf.origin} (in ${top.origin})`,
  };
}

/** The extension frame id of the frame at `path`, when exactly one frame answers for it. */
async function frameAtPath(
  deps: BrowserToolDeps,
  tabId: number,
  path: readonly number[],
): Promise<number | undefined> {
  if (!path.length || path.includes(-1)) return undefined;
  const key = path.join('.');
  const frames = await deps.host.listFrames(tabId).catch(() => []);
  const found = frames.filter((f) => f.path?.join('.') === key);
  return found.length === 1 ? found[0].frameId : undefined;
}

type Probe = { op: 'receiver_at'; x: number; y: number } | { op: 'receiver_focused' };

async function walk(
  deps: BrowserToolDeps,
  tabId: number,
  first: Probe,
  signal?: AbortSignal,
): Promise<InputReceiver> {
  let probe = first;
  let frameId = 0;
  let top: ReceiverReport | undefined;
  for (let hop = 0; hop <= MAX_FRAME_HOPS; hop++) {
    const report = await deps.client
      .call<ReceiverReport>(tabId, frameId, probe, { timeoutMs: PROBE_TIMEOUT_MS, signal })
      .catch(() => undefined);
    if (!report) {
      // The top page did not answer: nothing can be judged, so nothing is delivered.
      if (!top) throw new Error('The page did not answer before the input; nothing was sent.');
      return receiverTarget(tabId, top, undefined, frameId);
    }
    top ??= report;
    if (!report.frame) return receiverTarget(tabId, top, report, frameId || undefined);
    const next = await frameAtPath(deps, tabId, report.frame.path);
    if (next === undefined) break;
    frameId = next;
    probe =
      probe.op === 'receiver_at'
        ? { op: 'receiver_at', x: report.frame.x, y: report.frame.y }
        : { op: 'receiver_focused' };
  }
  return receiverTarget(tabId, top as ReceiverReport, undefined, frameId || undefined);
}

/** The document a trusted mouse event at `p` (top viewport, CSS px) lands in, now. */
export function receiverAtPoint(
  deps: BrowserToolDeps,
  tabId: number,
  p: Point,
  signal?: AbortSignal,
): Promise<InputReceiver> {
  return walk(deps, tabId, { op: 'receiver_at', x: p.x, y: p.y }, signal);
}

/** The document a key pressed now goes to. */
export function focusedReceiver(
  deps: BrowserToolDeps,
  tabId: number,
  signal?: AbortSignal,
): Promise<InputReceiver> {
  return walk(deps, tabId, { op: 'receiver_focused' }, signal);
}

export type InputCheck =
  | { kind: 'deliver' }
  | { kind: 'held'; held: HeldEffect }
  | { kind: 'denied'; message: string };

/**
 * Whether input may be delivered to `receiver` now. `judgedOrigin` is the document the call was
 * judged and approved on (the ref's frame): input landing there is what the verdict covered even
 * when the judged target was the link's destination. Anything else is the gate's to decide.
 */
export function checkInput(
  gate: ReceiverGate,
  receiver: InputReceiver,
  opts: { action: string; judgedOrigin?: string; partial?: string; resume?: unknown },
): InputCheck {
  const { target } = receiver;
  const v = gate.check(target, 'input');
  if (v.kind === 'deny')
    return {
      kind: 'denied',
      message: `Stopped: ${opts.action} would land in ${receiver.where}: ${v.reason}`,
    };
  if (v.kind === 'allow') return { kind: 'deliver' };
  if (target.origin !== undefined && target.origin === opts.judgedOrigin && !target.forbidden)
    return { kind: 'deliver' };
  return {
    kind: 'held',
    held: {
      target,
      what: `${opts.action} would land in ${receiver.where}`,
      ...(opts.partial ? { partial: opts.partial } : {}),
      ...(opts.resume !== undefined ? { resume: opts.resume } : {}),
    },
  };
}
