import { digestOf } from '../util/canonical-json';

/**
 * An approval is bound to (tool descriptor, canonical params, target origin): the same decision
 * can never authorize different arguments, a changed tool, or another site.
 */
export function approvalDigest(
  descriptorDigest: string,
  params: unknown,
  origin: string | undefined,
): Promise<string> {
  return digestOf({ tool: descriptorDigest, params, origin: origin ?? null });
}
