/**
 * Site secrets (issue 28 part 2): a username, a password or a TOTP seed the user stores for one
 * site. The model only ever sees a placeholder, `{{secret:github.com/password}}`; `browser_type`
 * puts the value in at the moment of typing, and only into a field whose own document is on the
 * secret's site (the content script checks that, at the keystroke, not the model or the ref).
 * Anything a tool returns has the values replaced by their placeholders again.
 *
 * Pure: the values come from the credentials store through a `SecretSource`.
 */

export type SiteSecretKind = 'text' | 'password' | 'totp';

/** What the settings keep of a secret (its value lives in the credentials store). */
export interface SiteSecretMeta {
  /** The site, as an origin: `https://github.com`. */
  origin: string;
  /** `[a-z0-9_.-]`, 1–40 characters: `password`, `username`, `otp`. */
  name: string;
  kind: SiteSecretKind;
}

export const SECRET_NAME = /^[a-z0-9][a-z0-9_.-]{0,39}$/;
/** `{{secret:<host>/<name>}}`; the host carries a port when the origin has one. */
const PLACEHOLDER = /\{\{secret:([^/\s{}]+)\/([a-z0-9][a-z0-9_.-]{0,39})\}\}/g;

export function placeholderOf(s: Pick<SiteSecretMeta, 'origin' | 'name'>): string {
  return `{{secret:${new URL(s.origin).host}/${s.name}}}`;
}

/** The placeholders in a text, in order (host and name as written). */
export function placeholdersIn(text: string): { token: string; host: string; name: string }[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({ token: m[0], host: m[1], name: m[2] }));
}

export interface SecretSource {
  /** Every stored secret's meta. */
  list(): Promise<SiteSecretMeta[]>;
  /** The stored value (a TOTP secret's seed), or null. */
  value(origin: string, name: string): Promise<string | null>;
  now(): number;
}

export type Substituted =
  | { kind: 'none' }
  | { kind: 'ok'; text: string; origin: string }
  | { kind: 'refused'; message: string };

/**
 * The text with its placeholders replaced by their values (a TOTP's current code), and the one
 * origin they all belong to. Refused when a placeholder names no stored secret, or when the
 * placeholders belong to two sites (one field is on one site).
 */
export async function substituteSecrets(
  text: string,
  source: SecretSource,
  totp: (seed: string, now: number) => Promise<string>,
): Promise<Substituted> {
  const found = placeholdersIn(text);
  if (!found.length) return { kind: 'none' };
  const all = await source.list();
  let origin: string | undefined;
  let out = text;
  for (const p of found) {
    const meta = all.find((s) => new URL(s.origin).host === p.host && s.name === p.name);
    if (!meta)
      return {
        kind: 'refused',
        message: `No secret ${p.token} is stored. Ask the user to add it in Keel's settings (Site secrets); never ask for the value in the chat.`,
      };
    if (origin && origin !== meta.origin)
      return {
        kind: 'refused',
        message: 'These secrets belong to different sites; type each into a field of its own site.',
      };
    origin = meta.origin;
    const stored = await source.value(meta.origin, meta.name);
    if (stored === null)
      return {
        kind: 'refused',
        message: `The secret ${p.token} could not be read; ask the user to store it again.`,
      };
    const value = meta.kind === 'totp' ? await totp(stored, source.now()) : stored;
    out = out.split(p.token).join(value);
  }
  return { kind: 'ok', text: out, origin: origin! };
}

/** Values shorter than this are not searched for in results (they would match ordinary text). */
export const MIN_REDACTED = 4;

/**
 * Replaces every stored value found in `text` with its placeholder (longest values first, so a
 * password containing a username is replaced whole). TOTP codes are not searched for: they are
 * six digits that expire in 30 seconds; the seed is.
 */
export function redactSecrets(
  text: string,
  secrets: readonly { placeholder: string; value: string }[],
): string {
  let out = text;
  const sorted = [...secrets]
    .filter((s) => s.value.length >= MIN_REDACTED)
    .sort((a, b) => b.value.length - a.value.length);
  for (const s of sorted) if (out.includes(s.value)) out = out.split(s.value).join(s.placeholder);
  return out;
}

/** Redacts every string inside a JSON-like value (tool results' details). */
export function redactDeep<T>(v: T, secrets: readonly { placeholder: string; value: string }[]): T {
  if (typeof v === 'string') return redactSecrets(v, secrets) as T;
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, secrets)) as T;
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactDeep(x, secrets)])) as T;
  return v;
}
