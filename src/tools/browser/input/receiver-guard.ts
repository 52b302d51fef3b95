/**
 * Arms the receivers of a tab before trusted input (docs/permissions.md "Receiver checks at
 * dispatch", the guard). The probe before each event (input-receiver.ts) decides whether to send
 * it; the page still runs between the probe and the event. So every frame of the tab is told,
 * before the first event, whether its own origin is cleared for this call, and a document that is
 * not swallows the trusted events that reach it (content-scripts/input-guard.ts). The decision
 * per frame is the same one the probe makes (`checkInput`), so the two never disagree.
 *
 * Disarming reports how many keys the cleared documents really received: a held key call resumes
 * from that count, not from how many keys were sent.
 */
import type { PageRequest } from '../../../protocol/page-messages';
import type { ReceiverGate } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { FrameInfo } from '../host';
import { checkInput, receiverTarget } from './input-receiver';
import type { GuardKind, GuardReport } from '../../../../content-scripts/input-guard';

const ARM_TIMEOUT_MS = 2000;

export interface FrameClearance {
  frameId: number;
  cleared: boolean;
}

/**
 * Which frames may receive this call's input: those whose document the gate clears, or the
 * judged document's origin (what the call's verdict covered). Pure.
 */
export function frameClearances(
  gate: ReceiverGate,
  tabId: number,
  frames: readonly FrameInfo[],
  judgedOrigin?: string,
): FrameClearance[] {
  const top = frames.find((f) => f.frameId === 0);
  if (!top) return frames.map((f) => ({ frameId: f.frameId, cleared: false }));
  const topReport = { origin: top.origin ?? 'null', url: top.url };
  return frames.map((f) => {
    const leaf =
      f.origin === undefined ? undefined : { origin: f.origin, url: f.url, element: undefined };
    const receiver = receiverTarget(tabId, topReport, leaf, f.frameId || undefined);
    const check = checkInput(gate, receiver, { action: 'input', judgedOrigin });
    return { frameId: f.frameId, cleared: check.kind === 'deliver' };
  });
}

export interface GuardTally {
  /** Keys the cleared documents received during the arm. */
  accepted: number;
  /** Every listed frame was armed and answered the disarm: the tally is the whole truth. */
  complete: boolean;
  /** Trusted events swallowed by documents not cleared, or in transit (for the result, tests). */
  swallowed: number;
}

export interface ArmedReceivers {
  disarm(): Promise<GuardTally>;
}

export async function armReceivers(opts: {
  deps: BrowserToolDeps;
  tabId: number;
  gate: ReceiverGate;
  judgedOrigin?: string;
  kinds: readonly GuardKind[];
  ttlMs: number;
}): Promise<ArmedReceivers> {
  const { deps, tabId } = opts;
  const frames = await deps.host.listFrames(tabId).catch((): FrameInfo[] => []);
  const clearances = frameClearances(opts.gate, tabId, frames, opts.judgedOrigin);
  const token = crypto.randomUUID();
  // Not tied to the tool's abort signal: a page left armed would refuse the user's own input
  // until the arm expires, so the disarm always goes out.
  const call = (frameId: number, request: PageRequest) =>
    deps.client
      .call<GuardReport>(tabId, frameId, request, { timeoutMs: ARM_TIMEOUT_MS })
      .catch(() => undefined);
  const armed = await Promise.all(
    clearances.map((c) =>
      call(c.frameId, {
        op: 'guard_arm',
        token,
        cleared: c.cleared,
        kinds: [...opts.kinds],
        ttlMs: opts.ttlMs,
      }),
    ),
  );
  let allArmed = frames.length > 0 && armed.every((r) => r?.armed === true);
  return {
    async disarm() {
      const reports = await Promise.all(
        clearances.map((c) => call(c.frameId, { op: 'guard_disarm', token })),
      );
      allArmed &&= reports.every((r) => r?.armed === true);
      let accepted = 0;
      let swallowed = 0;
      reports.forEach((r, i) => {
        if (!r) return;
        if (clearances[i].cleared) accepted += r.accepted;
        for (const n of Object.values(r.swallowed)) swallowed += n;
      });
      return { accepted, complete: allArmed, swallowed };
    },
  };
}
