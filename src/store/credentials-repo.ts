import { CommittedMap } from './committed-map';
import type { KeelDB } from './db';
import { RECORD_VERSION } from './records';

/**
 * The credentials store: secrets encrypted at rest with AES-GCM under a non-extractable key that
 * lives only in IndexedDB. `getSecret` is the one way out, and only provider and MCP factories
 * call it, at call time: a key never enters an event, a log line, an export or an error.
 */
export class CredentialsRepo {
  private keyPromise: Promise<CryptoKey> | null = null;
  /** Committed `updatedAt` per credential id (committed-map.ts): `stamp` runs every model call. */
  private readonly stamps: CommittedMap<{ updatedAt: number }>;

  constructor(private readonly db: KeelDB) {
    this.stamps = new CommittedMap(db.tracker);
  }

  private key(): Promise<CryptoKey> {
    this.keyPromise ??= (async () => {
      const existing = await this.db.keys.get('credentials');
      if (existing) return existing.key;
      const fresh = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
        'encrypt',
        'decrypt',
      ]);
      // Two workers racing to create the key: the first write wins and both use it.
      return this.db.transaction('rw', this.db.keys, async () => {
        const again = await this.db.keys.get('credentials');
        if (again) return again.key;
        await this.db.keys.put({ id: 'credentials', key: fresh });
        return fresh;
      });
    })();
    this.keyPromise.catch(() => (this.keyPromise = null));
    return this.keyPromise;
  }

  async setSecret(id: string, plaintext: string, now: number): Promise<void> {
    const key = await this.key();
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv },
      key,
      new TextEncoder().encode(plaintext),
    );
    await this.db.writing([this.db.credentials], () =>
      this.db.credentials.get(id).then((prev) =>
        this.stamps.writeThrough(id, { updatedAt: now }, () =>
          this.db.credentials.put({
            v: RECORD_VERSION,
            id,
            iv,
            ciphertext,
            createdAt: prev?.createdAt ?? now,
            updatedAt: now,
          }),
        ),
      ),
    );
  }

  async getSecret(id: string): Promise<string | null> {
    const rec = await this.db.credentials.get(id);
    if (!rec) return null;
    const key = await this.key();
    try {
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: rec.iv },
        key,
        rec.ciphertext,
      );
      return new TextDecoder().decode(plain);
    } catch {
      // Never include ciphertext or ids of other secrets in the message.
      throw new Error(
        'A stored credential could not be decrypted; enter the API key again in settings.',
      );
    }
  }

  /** When the secret was last written (0 if absent): lets callers cache what they built from it. */
  async stamp(id: string): Promise<number> {
    const hit = this.stamps.lookup(id);
    if (hit) return hit.value?.updatedAt ?? 0;
    const token = this.stamps.readToken();
    const rec = await this.db.credentials.get(id);
    if (rec) this.stamps.fill(id, { updatedAt: rec.updatedAt }, token);
    return rec?.updatedAt ?? 0;
  }

  /** The ids of every stored credential (never their values). */
  async ids(): Promise<string[]> {
    return (await this.db.credentials.toArray()).map((c) => c.id);
  }

  async has(id: string): Promise<boolean> {
    return (await this.db.credentials.get(id)) !== undefined;
  }

  async delete(id: string): Promise<void> {
    await this.db.writing([this.db.credentials], () =>
      this.stamps.writeThrough(id, undefined, () => this.db.credentials.delete(id)),
    );
  }
}
