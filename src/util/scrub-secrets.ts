/**
 * Removes credentials from a text that is about to be shown or given to the model — an error
 * message that carries a server's response body, which may echo the request's headers or token.
 * Pure and cheap: the shapes below, plus exact values the caller knows (a server's own token).
 */

export const SCRUBBED = '[redacted]';

/** Header-style and parameter-style credentials: the value is replaced, the name kept. */
const NAMED_SECRETS: RegExp[] = [
  // Authorization: Bearer xyz / Basic xyz / Token xyz (also in JSON and in prose).
  /\b(authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic|token|digest)\s+)?[^\s"',;}]+/gi,
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // x-api-key: …, api_key=…, "access_token": "…", token=…, client_secret, password, cookie.
  /\b((?:x-)?api[-_]?key|access[-_]?token|refresh[-_]?token|id[-_]?token|client[-_]?secret|token|secret|password|cookie|set-cookie)(["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi,
];

/** Shapes of well-known keys (Anthropic, OpenAI, GitHub, Google, Slack, JWTs). */
const KEY_SHAPES: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/g,
  /sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /gh[pousr]_[A-Za-z0-9]{30,}/g,
  /github_pat_[A-Za-z0-9_]{30,}/g,
  /AIza[0-9A-Za-z_-]{35}/g,
  /xox[abprs]-[A-Za-z0-9-]{10,}/g,
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/**
 * `text` with every credential replaced by [redacted]: the exact `known` values (8 characters or
 * more, also URL- and JSON-encoded), Authorization/Bearer headers, key=value credentials and
 * well-known key shapes.
 */
export function scrubSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const value of known) {
    if (!value || value.length < 8) continue;
    for (const form of new Set([
      value,
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
    ]))
      out = out.split(form).join(SCRUBBED);
  }
  out = out.replace(
    NAMED_SECRETS[0],
    (_m, name: string, scheme?: string) => `${name}${scheme ? `${scheme} ` : ''}${SCRUBBED}`,
  );
  out = out.replace(NAMED_SECRETS[1], (_m, scheme: string) => `${scheme} ${SCRUBBED}`);
  out = out.replace(NAMED_SECRETS[2], (m, name: string, sep: string) =>
    m.endsWith(SCRUBBED) ? m : `${name}${sep}${SCRUBBED}`,
  );
  for (const re of KEY_SHAPES) out = out.replace(re, SCRUBBED);
  return out;
}
