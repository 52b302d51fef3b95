import type { Op } from '../../protocol';
import { sha256Hex, canonicalJson } from '../../util/canonical-json';

/**
 * The fingerprint of an op: SHA-256 of its canonical payload without transport identity
 * (clientId, submissionId). The receipt keeps only this hash, never the input text. A site
 * secret's value is left out: an unsalted hash of a password could be guessed back from the
 * store (a retry of the same submission with another value replays the first outcome).
 */
export function opFingerprint(op: Op): Promise<string> {
  const { clientId: _c, submissionId: _s, ...payload } = op;
  if (payload.type === 'secrets.set') {
    const { value: _v, ...rest } = payload;
    return sha256Hex(canonicalJson(rest));
  }
  return sha256Hex(canonicalJson(payload));
}

export { ack, reject, type Outcome } from '../host/op-outcome';

/** Ops that change nothing durable: answered directly, no receipt. */
export const READ_ONLY_OPS = new Set([
  'initialize',
  'thread.subscribe',
  'thread.unsubscribe',
  'thread.export',
  'thread.recording',
  'thread.search',
]);
