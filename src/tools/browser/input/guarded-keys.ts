/**
 * Trusted keys, each delivered only after checking where it would go (docs/permissions.md
 * "Receiver checks at dispatch"). A page can move focus between two keys (from its own keydown,
 * or an iframe.focus() on a timer), so the focused frame is followed down and judged before every
 * key; the first key whose receiver is not cleared stops the sequence, and the hold says how many
 * keys went in, so that after approval the call continues from there without repeating them.
 */
import type { ReceiverGate } from '../../types';
import { INSERT_TEXT_OVER, pressKey, typeChar } from './cdp-input';
import type { BrowserToolDeps } from '../deps';
import { checkInput, focusedReceiver, type InputCheck } from './input-receiver';
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
}

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
  const judge = async (i: number, release: boolean): Promise<InputCheck> => {
    const receiver = await focusedReceiver(deps, tabId, opts.signal);
    const went = release ? i + 1 : i;
    return checkInput(gate, receiver, {
      action: release ? 'the release of that key' : i === 0 ? 'the keys' : 'the next key',
      judgedOrigin: opts.judgedOrigin,
      ...(went > from
        ? {
            partial: `${went} of ${strokes.length} keys went in before focus moved to ${receiver.where}`,
          }
        : {}),
      resume: { strokes: went },
    });
  };
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
