/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped (as JSON.stringify
 * does). Two payloads that mean the same thing hash the same, whatever order a UI built them in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    // Object.create(null): keys come from clients; "__proto__" must stay a plain key.
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortDeep(v);
    }
    return out;
  }
  return value;
}

export async function sha256Hex(text: string): Promise<string> {
  const buf = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function digestOf(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}

/** Freeze an object graph (descriptors are shared and must never be mutated). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
