/**
 * What the console and network reads never return: credentials. Header values of the headers that
 * carry them (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and the usual API-key
 * and session headers) are replaced, userinfo in URLs (`https://user:pass@host`) is removed, and
 * every credential value seen in such a header is scrubbed from all other text the tools return
 * (a page that logs its bearer token, an API that echoes it in a body). Site secrets are replaced
 * by their placeholders on top of this, by the wrapper every browser tool goes through
 * (secret-redaction.ts). Pure.
 */

export const REDACTED = '[redacted]';

/** Headers whose value is a credential, by lower-case name. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-access-token',
  'x-csrf-token',
  'x-xsrf-token',
  'x-amz-security-token',
]);

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}

/**
 * Values too short to scrub safely everywhere (a cookie `a=1` would blank every "1"). A credential
 * shorter than this is still replaced in its own header.
 */
const MIN_SCRUB_LENGTH = 8;

/**
 * The strings to scrub from any text, taken from one credential header's value: the whole value,
 * the token after an auth scheme (`Bearer abc…`), and each cookie's value.
 */
export function credentialValues(name: string, value: string): string[] {
  const lower = name.toLowerCase();
  if (!CREDENTIAL_HEADERS.has(lower)) return [];
  const out = [value.trim()];
  const scheme = /^\s*[A-Za-z][\w-]*\s+(\S+)\s*$/.exec(value);
  if (scheme && (lower === 'authorization' || lower === 'proxy-authorization')) out.push(scheme[1]);
  if (lower === 'cookie' || lower === 'set-cookie') {
    const pairs = lower === 'cookie' ? value.split(';') : [value.split(';')[0] ?? ''];
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      if (eq > 0) out.push(pair.slice(eq + 1).trim());
    }
  }
  return out.filter((v) => v.length >= MIN_SCRUB_LENGTH);
}

/** Headers with credential values replaced (names kept: that a request was authorized is useful). */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = isCredentialHeader(name) ? REDACTED : value;
  return out;
}

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi;

/** Text (a URL, a message) with URL userinfo and every known credential value replaced. */
export function scrubCredentials(text: string, known: ReadonlySet<string> = new Set()): string {
  let out = text.replace(USERINFO, `$1${REDACTED}@`);
  // Longest first, so a token inside a longer known value does not leave the rest behind.
  for (const value of [...known].sort((a, b) => b.length - a.length))
    if (out.includes(value)) out = out.split(value).join(REDACTED);
  return out;
}
