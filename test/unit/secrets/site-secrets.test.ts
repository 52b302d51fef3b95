/**
 * Site secrets (issue 28 part 2): RFC 6238 codes, placeholders in and out, and the ops on the real
 * engine — the value reaches the credentials store and nothing else the engine keeps or sends.
 */
import { describe, expect, it } from 'vitest';
import {
  placeholderOf,
  placeholdersIn,
  redactDeep,
  redactSecrets,
  type SecretSource,
  type SiteSecretMeta,
  substituteSecrets,
} from '../../../src/secrets/site-secrets';
import { base32Decode, totpCode } from '../../../src/secrets/totp';
import { makeRig } from '../engine/harness';

// RFC 6238 appendix B, SHA-1: the ASCII key "12345678901234567890", 8 digits.
const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('gives the RFC test vectors', async () => {
    for (const [t, code] of RFC_VECTORS) expect(await totpCode(RFC_SEED, t * 1000, 8)).toBe(code);
    // Six digits, as sign-in pages ask: the last six of the same value.
    expect(await totpCode(RFC_SEED, 59_000)).toBe('287082');
  });

  it('reads base32 as authenticator set-up pages show it, and refuses what is not base32', () => {
    expect(base32Decode('gezd gnbv-gy3t qojq')).toEqual(base32Decode('GEZDGNBVGY3TQOJQ'));
    expect(base32Decode('not base32!')).toBeNull();
    expect(base32Decode('')).toBeNull();
  });
});

const STORED: (SiteSecretMeta & { value: string })[] = [
  { origin: 'https://github.com', name: 'password', kind: 'password', value: 'hunter2-Very-Long' },
  { origin: 'https://github.com', name: 'username', kind: 'text', value: 'ada' + 'lovelace' },
  { origin: 'https://github.com', name: 'otp', kind: 'totp', value: RFC_SEED },
  { origin: 'http://127.0.0.1:8080', name: 'password', kind: 'password', value: 'local-pass' },
];
const source: SecretSource = {
  list: async () => STORED.map(({ value: _v, ...m }) => m),
  value: async (origin, name) =>
    STORED.find((s) => s.origin === origin && s.name === name)?.value ?? null,
  now: () => 59_000,
};

describe('placeholders', () => {
  it('name the site by host (with its port) and the secret by name', () => {
    expect(placeholderOf(STORED[0])).toBe('{{secret:github.com/password}}');
    expect(placeholderOf(STORED[3])).toBe('{{secret:127.0.0.1:8080/password}}');
    expect(placeholdersIn('{{secret:github.com/username}} and {{secret:x/y}}')).toHaveLength(2);
  });

  it('become values only when typed, all of one site, TOTP codes computed then', async () => {
    expect(await substituteSecrets('plain text', source, totpCode)).toEqual({ kind: 'none' });
    expect(await substituteSecrets('{{secret:github.com/password}}', source, totpCode)).toEqual({
      kind: 'ok',
      text: 'hunter2-Very-Long',
      origin: 'https://github.com',
    });
    expect(await substituteSecrets('{{secret:github.com/otp}}', source, totpCode)).toMatchObject({
      text: '287082',
    });
    const two = await substituteSecrets(
      '{{secret:github.com/password}}{{secret:127.0.0.1:8080/password}}',
      source,
      totpCode,
    );
    expect(two.kind).toBe('refused');
    const unknown = await substituteSecrets('{{secret:bank.test/pin}}', source, totpCode);
    expect(unknown).toMatchObject({ kind: 'refused' });
    if (unknown.kind === 'refused') expect(unknown.message).toContain('{{secret:bank.test/pin}}');
  });

  it('results have every stored value replaced by its placeholder, the longest first', () => {
    const known = STORED.map((s) => ({ placeholder: placeholderOf(s), value: s.value }));
    expect(redactSecrets('Signed in as adalovelace (hunter2-Very-Long)', known)).toBe(
      'Signed in as {{secret:github.com/username}} ({{secret:github.com/password}})',
    );
    expect(redactDeep({ a: ['local-pass', 3], b: { c: 'x local-pass y' } }, known)).toEqual({
      a: ['{{secret:127.0.0.1:8080/password}}', 3],
      b: { c: 'x {{secret:127.0.0.1:8080/password}} y' },
    });
  });
});

describe('secrets.set / secrets.remove on the engine', () => {
  const VALUE = 'S3cret-value-that-must-not-leak';

  it('stores the value in the credentials store only; settings show the placeholder', async () => {
    const rig = await makeRig();
    const mark = rig.client.events.length;
    const ack = await rig.client.ack<{ placeholder: string }>({
      type: 'secrets.set',
      origin: 'github.com',
      name: 'password',
      kind: 'password',
      value: VALUE,
    });
    expect(ack.placeholder).toBe('{{secret:github.com/password}}');
    const ev = (await rig.client.waitFor((e) => e.type === 'settings.updated')) as {
      settings: { siteSecrets?: unknown[] };
    };
    expect(ev.settings.siteSecrets).toEqual([
      expect.objectContaining({
        origin: 'https://github.com',
        name: 'password',
        kind: 'password',
        placeholder: '{{secret:github.com/password}}',
      }),
    ]);
    const settings = await rig.store.settings.get();
    expect(await rig.store.credentials.getSecret(settings.siteSecrets![0].credentialId)).toBe(
      VALUE,
    );
    // Nowhere else: not in settings, events or receipts (the receipt's hash leaves the value out).
    expect(JSON.stringify(settings)).not.toContain(VALUE);
    expect(JSON.stringify(rig.client.events.slice(mark))).not.toContain(VALUE);
    const { opFingerprint } = await import('../../../src/engine/ops/receipts');
    const base = {
      clientId: 'c',
      submissionId: 's',
      type: 'secrets.set' as const,
      origin: 'a',
      name: 'b',
      kind: 'password' as const,
    };
    expect(await opFingerprint({ ...base, value: 'one' })).toBe(
      await opFingerprint({ ...base, value: 'two' }),
    );

    await rig.client.ack({
      type: 'secrets.remove',
      origin: 'https://github.com',
      name: 'password',
    });
    expect((await rig.store.settings.get()).siteSecrets).toEqual([]);
    expect(await rig.store.credentials.getSecret(settings.siteSecrets![0].credentialId)).toBeNull();
  });

  it('refuses a bad site, name or seed without quoting the value', async () => {
    const rig = await makeRig();
    for (const op of [
      { origin: 'mcp:server', name: 'password', kind: 'password' as const },
      { origin: 'github.com', name: 'Pass Word', kind: 'password' as const },
      { origin: 'github.com', name: 'otp', kind: 'totp' as const },
    ]) {
      const r = await rig.client.send({ type: 'secrets.set', ...op, value: `${VALUE}!` });
      expect(r).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
      expect(JSON.stringify(r)).not.toContain(VALUE);
    }
    expect(
      await rig.client.send({ type: 'secrets.remove', origin: 'github.com', name: 'nothing' }),
    ).toMatchObject({ type: 'command.reject', code: 'not_found' });
  });
});
