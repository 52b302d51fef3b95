import type { Store } from '../../store/store';

/** Shapes of well-known API keys and tokens (a second net behind the exact-value scan). */
const KEY_PATTERNS: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/g, // Anthropic
  /sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, // OpenAI
  /sk-or-v1-[A-Za-z0-9]{32,}/g, // OpenRouter
  /gh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub tokens
  /AIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /xox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
];

export const REDACTED = '[redacted secret]';

/**
 * Fields of a stored JSON credential that hold a secret (access_token, refresh_token, id_token,
 * client_secret, codeVerifier, private_key…). The rest of such a record names things (the
 * server's URL, its endpoints, the client id, token_type) that a thread legitimately mentions.
 */
const SECRET_FIELD = /(?:token|secret|verifier|password|assertion|key)$/i;

/**
 * The spellings of one stored secret that can appear in a text: the value, as it appears inside
 * a JSON string, and, when the value is itself a JSON record (an OAuth token set is stored as one
 * JSON value), each string it holds (access_token, refresh_token, id_token, client_secret…),
 * since those travel on their own and the whole record never does.
 */
export function secretForms(value: string): Set<string> {
  const forms = new Set<string>();
  const add = (v: string) => {
    if (v.length < 8) return;
    forms.add(v);
    forms.add(JSON.stringify(v).slice(1, -1));
  };
  add(value);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return forms;
  }
  const walk = (v: unknown, key: string | undefined, depth: number): void => {
    // Bounded: a credential is small; a hostile value must not make the export recurse forever.
    if (depth > 8) return;
    if (typeof v === 'string') {
      if (key && SECRET_FIELD.test(key)) add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key, depth + 1);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
    }
  };
  if (parsed && typeof parsed === 'object') walk(parsed, undefined, 0);
  return forms;
}

/**
 * Redact every stored secret (exact values, decrypted here and nowhere else) and anything shaped
 * like a well-known key from a text that is about to leave Keel (an export). Returns the clean
 * text and how many secrets were found.
 */
export async function redactSecrets(
  store: Store,
  text: string,
): Promise<{ text: string; found: number }> {
  let found = 0;
  let out = text;
  const ids = await store.credentials.ids();
  for (const id of ids) {
    const value = await store.credentials.getSecret(id).catch(() => null);
    if (!value || value.length < 8) continue;
    for (const form of secretForms(value)) {
      const parts = out.split(form);
      found += parts.length - 1;
      out = parts.join(REDACTED);
    }
  }
  for (const re of KEY_PATTERNS) {
    out = out.replace(re, () => {
      found += 1;
      return REDACTED;
    });
  }
  return { text: out, found };
}
