import { createHash } from 'node:crypto';

/**
 * The one global the simulation adapts: WebCrypto's `digest` settles on libuv's thread pool, so
 * two digests in flight could finish in either order and the same seed could interleave
 * differently. Here it computes the same SHA-256 synchronously and settles in a microtask.
 * (Only digests: AES-GCM is not on any engine path the simulation drives.)
 */
let installed = false;

export function installDeterministicDigest(): void {
  if (installed) return;
  installed = true;
  const subtle = globalThis.crypto.subtle as SubtleCrypto & { digest: SubtleCrypto['digest'] };
  const original = subtle.digest.bind(subtle);
  subtle.digest = (async (
    algorithm: AlgorithmIdentifier,
    data: BufferSource,
  ): Promise<ArrayBuffer> => {
    const name = (typeof algorithm === 'string' ? algorithm : algorithm.name).toUpperCase();
    if (name !== 'SHA-256') return original(algorithm, data);
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
    const out = createHash('sha256').update(bytes).digest();
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  }) as SubtleCrypto['digest'];
}
