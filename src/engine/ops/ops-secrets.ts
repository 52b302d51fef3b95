import { normalizeOrigin } from '../../gatekeeper/origins';
import { placeholderOf, SECRET_NAME } from '../../secrets/site-secrets';
import { base32Decode } from '../../secrets/totp';
import type { StoredSiteSecret } from '../../store/records';
import { done, type Handler, type HandlerMap } from './op-handler';
import { ack, reject } from './receipts';

/**
 * secrets.set / secrets.remove (docs/protocol.md §Settings): site secrets the model never sees
 * (src/secrets/site-secrets.ts). The value goes to the credentials store, never into settings,
 * an event, an ack, a log or an error; the ack names the placeholder.
 */

function siteOf(input: string): string | null {
  const origin = normalizeOrigin(input);
  return origin && !origin.startsWith('mcp:') ? origin : null;
}

const set: Handler<'secrets.set'> = async (engine, _client, op, ctx) => {
  const origin = siteOf(op.origin);
  if (!origin)
    return done(
      reject('invalid_command', `"${op.origin}" is not a web site (https://example.com).`),
    );
  if (!SECRET_NAME.test(op.name))
    return done(
      reject(
        'invalid_command',
        'A secret name is 1 to 40 lower-case letters, digits, ".", "_" or "-" (password, username, otp).',
      ),
    );
  // The value is checked without being quoted back.
  if (op.kind === 'totp' && !base32Decode(op.value))
    return done(
      reject(
        'invalid_command',
        'A one-time-code secret is the base32 key the site shows when you set up an authenticator app.',
      ),
    );
  const { store, clock } = engine.ctx;
  const current = await store.settings.get();
  const kept = (current.siteSecrets ?? []).filter(
    (s) => !(s.origin === origin && s.name === op.name),
  );
  const credentialId = `site-secret:${origin}|${op.name}`;
  const now = clock.now();
  // WebCrypto cannot run inside an IndexedDB transaction: the value first. A crash between the
  // two leaves an unreferenced credential, never a reference to a missing one.
  await store.credentials.setSecret(credentialId, op.value, now);
  const entry: StoredSiteSecret = {
    origin,
    name: op.name,
    kind: op.kind,
    credentialId,
    updatedAt: now,
  };
  const placeholder = placeholderOf(entry);
  const outcome = ack({ placeholder });
  await engine.ctx.commit('site_secret', async () => {
    await store.settings.put({ ...current, siteSecrets: [...kept, entry] });
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const remove: Handler<'secrets.remove'> = async (engine, _client, op, ctx) => {
  const origin = siteOf(op.origin);
  const { store } = engine.ctx;
  const current = await store.settings.get();
  const entry = (current.siteSecrets ?? []).find((s) => s.origin === origin && s.name === op.name);
  if (!entry)
    return done(reject('not_found', `No secret "${op.name}" is stored for ${op.origin}.`));
  const outcome = ack();
  await engine.ctx.commit('site_secret', async () => {
    await store.settings.put({
      ...current,
      siteSecrets: (current.siteSecrets ?? []).filter((s) => s !== entry),
    });
    await store.credentials.delete(entry.credentialId);
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

export const secretOps: Pick<HandlerMap, 'secrets.set' | 'secrets.remove'> = {
  'secrets.set': set,
  'secrets.remove': remove,
};
