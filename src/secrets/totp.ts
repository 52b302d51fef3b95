/**
 * RFC 6238 time-based one-time passwords (HMAC-SHA1, 30-second steps, 6 digits: what sign-in
 * pages' authenticator set-up uses), computed at the moment of typing with WebCrypto.
 */

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Base32 (RFC 4648) → bytes; spaces, dashes and padding are ignored, case too. Null when invalid. */
export function base32Decode(input: string): Uint8Array<ArrayBuffer> | null {
  const clean = input.toUpperCase().replace(/[\s=-]/g, '');
  if (!clean.length) return null;
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = BASE32.indexOf(ch);
    if (i < 0) return null;
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The HOTP value (RFC 4226) of `key` at `counter`, `digits` long. */
export async function hotp(
  key: Uint8Array<ArrayBuffer>,
  counter: number,
  digits = 6,
): Promise<string> {
  const msg = new Uint8Array(8);
  let c = counter;
  for (let i = 7; i >= 0; i--) {
    msg[i] = c & 0xff;
    c = Math.floor(c / 256);
  }
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-1' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', k, msg));
  const offset = mac[mac.length - 1] & 0x0f;
  const bin =
    ((mac[offset] & 0x7f) << 24) |
    (mac[offset + 1] << 16) |
    (mac[offset + 2] << 8) |
    mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The TOTP code of a base32 seed at `nowMs` (30-second steps). */
export async function totpCode(seed: string, nowMs: number, digits = 6): Promise<string> {
  const key = base32Decode(seed);
  if (!key) throw new Error('The stored one-time-code seed is not valid base32.');
  return hotp(key, Math.floor(nowMs / 1000 / 30), digits);
}
