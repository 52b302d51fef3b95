/**
 * Trusted keys, each delivered only after checking where it would go (docs/permissions.md
 * "Receiver checks at dispatch"). A page can move focus between two keys (from its own keydown,
 * or an iframe.focus() on a timer), so the focused frame is followed down and judged before every
 * key; the first key whose receiver is not cleared stops the sequence, and the hold says how many
 * keys went in, so that after approval the call continues from there without repeating them.
 * The page still runs between a probe and its key, so the documents are armed as well
 * (receiver-guard.ts): one not cleared refuses a key that reaches it anyway, and "went in" is
 * what the documents counted, not what was sent.
 */
import type { ReceiverGate } from '../../types';
import { INSERT_TEXT_OVER, pressKey, typeChar } from './cdp-input';
import type { BrowserToolDeps } from '../deps';
import { checkInput, focusedReceiver, type InputCheck } from './input-receiver';
import { armReceivers, type GuardTally } from './receiver-guard';
import type { KeyCombo } from './key-combo';
import { keysOfText } from '../../../protocol/key-names';

export type Stroke =
  | { kind: 'combo'; combo: KeyCombo }
  | { kind: 'char'; ch: string }
  /** Long text in one Input.insertText: one event, judged once. */
  | { kind: 'insert'; text: string };

/** The strokes of one browser_keyboard call, in the order they run. */
export function strokesOf(combos: readonly KeyCombo[], text = '', keysFirst = false): Stroke[] {
  const keys = combos.map((combo): Stroke => ({ kind: 'combo', combo }));
  const typed: Stroke[] =
    text.length > INSERT_TEXT_OVER
      ? [{ kind: 'insert', text }]
      : keysOfText(text).map((ch): Stroke => ({ kind: 'char', ch }));
  return keysFirst ? [...keys, ...typed] : [...typed, ...keys];
}

/** What `ctx.resume` carries for a key call: how many strokes already reached the page. */
export function resumedStrokes(resume: unknown): number {
  if (typeof resume !== 'object' || resume === null) return 0;
  const n = (resume as { strokes?: unknown }).strokes;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

export interface StrokeRun {
  /** Strokes delivered in total (this run and earlier ones). */
  delivered: number;
  /** Set when a receiver was not cleared: nothing from that stroke on was sent. */
  stopped?: Exclude<InputCheck, { kind: 'deliver' }>;
  /**
   * Set when the page's documents received fewer keys than were sent and the sequence was not
   * held: keys sent while the page moved focus went nowhere (or were refused by a document not
   * cleared), and the model is told rather than left to assume the text is complete.
   */
  short?: string;
}

/** How long the receivers stay armed at most (renewed by nothing: the call ends well before). */
const armMs = (strokes: number) => Math.min(120_000, 15_000 + strokes * 250);

export async function deliverStrokes(opts: {
  deps: BrowserToolDeps;
  tabId: number;
  strokes: readonly Stroke[];
  gate: ReceiverGate;
  /** Strokes already delivered by an earlier run of this call (ctx.resume). */
  from: number;
  judgedOrigin?: string;
  signal?: AbortSignal;
}): Promise<StrokeRun> {
  const { deps, tabId, strokes, gate, from } = opts;
  let where = '';
  const judge = async (i: number, release: boolean): Promise<InputCheck> => {
    const receiver = await focusedReceiver(deps, tabId, opts.signal);
    where = receiver.where;
    return checkInput(gate, receiver, {
      action: release ? 'the release of that key' : i === 0 ? 'the keys' : 'the next key',
      judgedOrigin: opts.judgedOrigin,
    });
  };
  // The documents themselves refuse keys that reach them uncleared between a probe and its key
  // (receiver-guard.ts), and count what they received.
  const guard = await armReceivers({
    deps,
    tabId,
    gate,
    judgedOrigin: opts.judgedOrigin,
    kinds: ['keys'],
    ttlMs: armMs(strokes.length - from),
  });
  // Disarmed on every way out, the tally read once the last key was handled.
  const sending = sendStrokes(deps, tabId, strokes, from, judge);
  const ended = await sending.then(
    (run) => ({ run }),
    (error: unknown) => ({ error }),
  );
  const tally = await guard.disarm();
  if ('error' in ended) throw ended.error;
  return account(ended.run, tally, from, strokes.length, where);
}

/**
 * What reached the page. The documents' own tally is taken when every frame was armed and one of
 * them refused something (a key that reached a frame not cleared, or a document whose focus was
 * moving into a frame): then the keys sent are not the keys received. Otherwise what was sent
 * stands: a key can also go where no document listens (a select's open popup), which is no sign
 * of a page moving focus. A hold carries the count, so an approved call resumes at the first key
 * that did not go in.
 */
export function account(
  sent: StrokeRun,
  tally: GuardTally,
  from: number,
  total: number,
  where: string,
): StrokeRun {
  const went =
    tally.complete && tally.swallowed > 0
      ? Math.min(sent.delivered, from + tally.accepted)
      : sent.delivered;
  const stopped = sent.stopped;
  if (stopped?.kind === 'held') {
    return {
      delivered: went,
      stopped: {
        kind: 'held',
        held: {
          ...stopped.held,
          ...(went > from
            ? { partial: `${went} of ${total} keys went in before focus moved to ${where}` }
            : {}),
          resume: { strokes: went },
        },
      },
    };
  }
  if (stopped) return { ...sent, delivered: went };
  if (went < sent.delivered)
    return {
      delivered: went,
      short: `Only ${went} of ${total} keys reached the page: it moved the focus while the keys were typed, and ${sent.delivered - went} went nowhere or into a frame not allowed. Check the field before typing the rest.`,
    };
  return sent;
}

async function sendStrokes(
  deps: BrowserToolDeps,
  tabId: number,
  strokes: readonly Stroke[],
  from: number,
  judge: (i: number, release: boolean) => Promise<InputCheck>,
): Promise<StrokeRun> {
  for (let i = from; i < strokes.length; i++) {
    const check = await judge(i, false);
    if (check.kind !== 'deliver') return { delivered: i, stopped: check };
    // The key's own release is judged too: its keydown handler may have moved focus already.
    let release: InputCheck = { kind: 'deliver' };
    const beforeRelease = async () => {
      release = await judge(i, true);
      return release.kind === 'deliver';
    };
    const s = strokes[i];
    if (s.kind === 'combo')
      await pressKey(deps.debuggers, tabId, s.combo.key, s.combo.modifiers, beforeRelease);
    else if (s.kind === 'char') await typeChar(deps.debuggers, tabId, s.ch, beforeRelease);
    else await deps.debuggers.send(tabId, 'Input.insertText', { text: s.text });
    const released = release as InputCheck;
    if (released.kind !== 'deliver') return { delivered: i + 1, stopped: released };
  }
  return { delivered: strokes.length };
}
