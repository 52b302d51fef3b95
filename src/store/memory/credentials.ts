import type { MemoryAccess } from './tables';
import { RECORD_VERSION, type CredentialRecord, type KeyRecord } from '../records';

/**
 * Credentials, encrypted at rest exactly as in the Dexie store: AES-GCM under a non-extractable
 * key kept in the `keys` table (created once; two stores racing share the first one written).
 */
export class MemoryCredentials {
  private keyPromise: Promise<CryptoKey> | null = null;

  constructor(private readonly a: MemoryAccess) {}

  private key(): Promise<CryptoKey> {
    this.keyPromise ??= (async () => {
      const existing = await this.a.run(
        () => this.a.data.table('keys').get('credentials') as KeyRecord | undefined,
      );
      if (existing) return existing.key;
      const fresh = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
        'encrypt',
        'decrypt',
      ]);
      return this.a.run(() => {
        const again = this.a.data.table('keys').get('credentials') as KeyRecord | undefined;
        if (again) return again.key;
        this.a.put('keys', 'credentials', { id: 'credentials', key: fresh } satisfies KeyRecord);
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
    await this.a.run(() => {
      const prev = this.a.get<CredentialRecord>('credentials', id);
      const rec: CredentialRecord = {
        v: RECORD_VERSION,
        id,
        iv,
        ciphertext,
        createdAt: prev?.createdAt ?? now,
        updatedAt: now,
      };
      this.a.put('credentials', id, rec);
    });
  }

  async getSecret(id: string): Promise<string | null> {
    const rec = await this.a.run(() => this.a.get<CredentialRecord>('credentials', id));
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
      throw new Error(
        'A stored credential could not be decrypted; enter the API key again in settings.',
      );
    }
  }

  async stamp(id: string): Promise<number> {
    return (
      (await this.a.run(() => this.a.get<CredentialRecord>('credentials', id)))?.updatedAt ?? 0
    );
  }

  ids(): Promise<string[]> {
    return this.a.run(() => this.a.select<CredentialRecord>('credentials').map((c) => c.id));
  }

  async has(id: string): Promise<boolean> {
    return (
      (await this.stamp(id)) !== 0 ||
      (await this.a.run(() => this.a.get('credentials', id))) !== undefined
    );
  }

  delete(id: string): Promise<void> {
    return this.a.run(() => void this.a.delete('credentials', id));
  }
}
