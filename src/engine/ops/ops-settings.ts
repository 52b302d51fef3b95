import { normalizeOrigin } from '../../gatekeeper/origins';
import { parseSkill } from '../../skills/parse-skill';
import { ack, reject } from './receipts';
import { done, type Handler } from './op-handler';
import { applySettingsPatch, publicSettings, validateSettings } from '../env/settings-service';

const update: Handler<'settings.update'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const current = await store.settings.get();
  const { next, secrets, removedRules } = applySettingsPatch(current, op.patch);
  const invalid = validateSettings(next);
  if (invalid) return done(reject('invalid_command', invalid));
  // Secrets first (WebCrypto cannot run inside an IndexedDB transaction). A crash between the
  // two leaves at worst an unreferenced secret, never a reference to a missing one... except a
  // removal, which deletes the reference in the same commit below.
  for (const s of secrets) {
    if (s.value !== null) await store.credentials.setSecret(s.credentialId, s.value, clock.now());
  }
  const settings = await engine.ctx.commit('settings', async () => {
    await store.settings.put(next);
    for (const s of secrets) if (s.value === null) await store.credentials.delete(s.credentialId);
    for (const origin of removedRules) await store.siteRules.remove(origin);
    const pub = publicSettings(next, await store.siteRules.list(), await store.skills.list());
    await ctx.writeReceipt(ack({ settings: pub }));
    return pub;
  });
  return done(ack({ settings }), () => engine.ctx.emit({ type: 'settings.updated', settings }));
};

const setRule: Handler<'siteRules.set'> = async (engine, _client, op, ctx) => {
  const origin = normalizeOrigin(op.origin);
  if (!origin)
    return done(
      reject(
        'invalid_command',
        `"${op.origin}" is not a web site origin (https://example.com) or an MCP server (mcp:<id>).`,
      ),
    );
  const outcome = ack({ origin, rule: op.rule });
  await engine.ctx.commit('site_rule', async () => {
    await engine.ctx.store.siteRules.set(origin, op.rule, engine.ctx.clock.now(), op.pageToolsRead);
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const importSkill: Handler<'skills.import'> = async (engine, _client, op, ctx) => {
  const parsed = parseSkill(op.content);
  if ('error' in parsed) return done(reject('invalid_command', parsed.error));
  const outcome = ack({ name: parsed.name });
  await engine.ctx.commit('skill_import', async () => {
    await engine.ctx.store.skills.put({ ...parsed, now: engine.ctx.clock.now() });
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

const removeSkill: Handler<'skills.remove'> = async (engine, _client, op, ctx) => {
  if (!(await engine.ctx.store.skills.get(op.name)))
    return done(reject('not_found', `No skill is called "${op.name}".`));
  const outcome = ack();
  await engine.ctx.commit('skill_remove', async () => {
    await engine.ctx.store.skills.remove(op.name);
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.publishSettings());
};

/**
 * MCP sign-in and sign-out are acked at once: the sign-in page waits for the user, and its outcome
 * (signed in, or why not) reaches every UI as the server's status in `settings.updated`.
 */
const mcpSignIn: Handler<'mcp.signIn'> = async (engine, _client, op) => {
  const auth = engine.ctx.live.mcpAuth;
  if (!auth) return done(reject('invalid_command', 'MCP sign-in is not available here.'));
  return done(ack(), () => void auth.signIn(op.serverId).catch(() => undefined));
};

const mcpSignOut: Handler<'mcp.signOut'> = async (engine, _client, op) => {
  const auth = engine.ctx.live.mcpAuth;
  if (!auth) return done(reject('invalid_command', 'MCP sign-in is not available here.'));
  return done(ack(), () => void auth.signOut(op.serverId).catch(() => undefined));
};

export const settingsOps = {
  'mcp.signIn': mcpSignIn,
  'mcp.signOut': mcpSignOut,
  'settings.update': update,
  'siteRules.set': setRule,
  'skills.import': importSkill,
  'skills.remove': removeSkill,
};
