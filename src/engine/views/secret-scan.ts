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
    const escaped = JSON.stringify(value).slice(1, -1); // as it appears inside JSON strings
    for (const form of new Set([value, escaped])) {
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
