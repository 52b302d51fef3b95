/**
 * What a key call will do to the page, computed once from the canonical keys (key-names.ts) and
 * used by the key tools' judgement: which element it acts on, and what checks apply there.
 *
 * Policy for sequences: a call that can move focus (Tab) and later activates (Enter, Space) is
 * not judged on any one element — the element Tab lands on is only known once the keys run, and
 * the page can move focus itself meanwhile — so it always asks, naming why. Everything else is
 * judged on the element the keys start on (the ref, else the focused element).
 */
import type { KeyCombo } from './key-combo';
import { keyEffect, keysOfText } from '../../../protocol/key-names';
import type { RiskChecks } from '../element-target';

export type KeyPlan =
  /** No key activates anything: judged on the page (or the ref's frame). */
  | { kind: 'page' }
  /** Keys act on the element they start on: judged on that element with `checks`. */
  | { kind: 'element'; checks: Required<RiskChecks> }
  /** Focus moves before a key activates: the call always asks. */
  | { kind: 'always_ask'; reason: string };

/** The keys of one call in the order they run (keysFirst: keys, then text; else text, then keys). */
export function keySequence(combos: readonly KeyCombo[], text = '', keysFirst = false): KeyCombo[] {
  const typed = keysOfText(text).map((key): KeyCombo => ({ key, modifiers: [] }));
  return keysFirst ? [...combos, ...typed] : [...typed, ...combos];
}

export function planKeys(sequence: readonly KeyCombo[]): KeyPlan {
  let movedFocus = false;
  let activates = false;
  let submits = false;
  for (const c of sequence) {
    const effect = keyEffect(c.key);
    if (effect.activates && movedFocus) {
      const name = c.key === ' ' ? 'Space' : c.key;
      return {
        kind: 'always_ask',
        reason: `moves focus with Tab and then presses ${name}: what it activates is only known when the keys run`,
      };
    }
    movedFocus ||= effect.movesFocus;
    activates ||= effect.activates;
    submits ||= effect.submits;
  }
  return activates ? { kind: 'element', checks: { activates, submits } } : { kind: 'page' };
}
