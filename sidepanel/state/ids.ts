/**
 * Identity of this panel instance. The clientId must stay the same across reconnects (receipts are
 * keyed by clientId + submissionId), so it lives in sessionStorage: a reload of the same panel keeps
 * it, a second panel gets its own.
 */
const CLIENT_ID_KEY = 'keel.clientId';

export function newId(prefix: string): string {
  const uuid =
    typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function'
      ? crypto.randomUUID()
      : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
  return `${prefix}-${uuid}`;
}

export function stableClientId(storage: Pick<Storage, 'getItem' | 'setItem'> | null): string {
  try {
    const existing = storage?.getItem(CLIENT_ID_KEY);
    if (existing) return existing;
    const id = newId('panel');
    storage?.setItem(CLIENT_ID_KEY, id);
    return id;
  } catch {
    // Storage can be unavailable (opaque origins, tests): a per-load id still satisfies the contract.
    return newId('panel');
  }
}
