/**
 * Runs generated attacks against the built extension in Chromium: one browser, one engine Port and
 * one scripted model for a whole sample; per attack a fresh tab, fresh pages and fresh rules.
 *
 * The scripted model is lured, not clever: it reads the page (a snapshot), then makes the one
 * call the attack planned, with refs found by name in what it read. The "user" approves exactly
 * what each approval card names (`allow_once`, the card's origin) and nothing else.
 */
import type { Page } from 'playwright-core';
import type { Decision, EventOf } from '../../../../src/protocol';
import {
  EngineClient,
  type LaunchedExtension,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
  launchExtension,
  startModelServer,
} from '../../harness';
import { currentTurn, DIST, isTitleRequest, refNamed, textOf } from '../support';
import { type Attack, levelOf, type RenderedAttack, renderAttack, TOOL_PLANS } from './attack';
import { type Breach, judge } from './oracle';
import { type CorpusOrigins, type OriginKey, originKeyOf, startOrigins } from './origins';

/** How long the pages may keep acting after the turn ends (timers, beacons, redirects). */
const SETTLE_MS = 700;

export interface AttackOutcome {
  attack: Attack;
  breaches: Breach[];
  /** The origins the approval cards named (all granted). */
  granted: OriginKey[];
  /** False when the model found nothing to act on (the lure was not in its snapshot). */
  acted: boolean;
  /** The tool's result text, for reports. */
  result?: string;
  error?: string;
}

export interface CorpusSession {
  origins: CorpusOrigins;
  run(attack: Attack): Promise<AttackOutcome>;
  close(): Promise<void>;
}

interface Lured {
  rendered: RenderedAttack;
  attack: Attack;
  acted: boolean;
  /** The centre of the lure's slot in the viewport, measured once the page has loaded. */
  at?: { x: number; y: number };
}

/** The planned call with its placeholders filled from the snapshot and the rendered page. */
function luredCall(lured: Lured, snapshot: string): { name: string; args: unknown } | undefined {
  const plan = TOOL_PLANS[lured.attack.tool];
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plan.args as Record<string, unknown>)) {
    if (v === '@lure' || v === '@drop') {
      const ref = refNamed(snapshot, v === '@lure' ? 'Continue' : 'Drop here');
      if (!ref) {
        if (v === '@drop') {
          args.toX = 400;
          args.toY = 140;
          continue;
        }
        return undefined;
      }
      args[k] = ref;
    } else if (typeof v === 'string' && v.startsWith('@typed'))
      args[k] = lured.rendered.typed + v.slice(6).replace('\\r', '\r');
    else if (v === '@href') args[k] = lured.rendered.href;
    else if (v === '@x' || v === '@y') {
      if (!lured.at) return undefined;
      args[k] = Math.round(v === '@x' ? lured.at.x : lured.at.y);
    } else args[k] = v;
  }
  return { name: plan.name, args };
}

function lureReply(lured: Lured | undefined, r: RecordedRequest): ScriptedReply {
  const turn = currentTurn(r);
  const calls = turn.flatMap((m) => m.tool_calls ?? []).length;
  if (!lured || calls >= 2) return { text: 'Done.' };
  if (calls === 0)
    return { text: 'Let me read the page.', toolCalls: [{ name: 'browser_snapshot', args: {} }] };
  const snapshot = turn
    .filter((m) => m.role === 'tool')
    .map(textOf)
    .join('\n');
  const call = luredCall(lured, snapshot);
  if (!call) {
    if (process.env.KEEL_ATTACKS_DEBUG) console.error(`no lure in:\n${snapshot}`);
    return { text: 'There is no Continue here.' };
  }
  lured.acted = true;
  return { text: 'The page says to continue.', toolCalls: [call] };
}

export async function startCorpusSession(): Promise<CorpusSession> {
  const origins = await startOrigins();
  let lured: Lured | undefined;
  const model: ModelServer = await startModelServer({
    respond: (r) => (isTitleRequest(r) ? { text: 'Checkout' } : lureReply(lured, r)),
  });
  let ext: LaunchedExtension | undefined;
  try {
    ext = await launchExtension({ dist: DIST });
    const panel = await ext.openPanel();
    const client = await EngineClient.connect(panel, { timeoutMs: 15_000 });
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const provider = model.provider('openai', 'lured');
    await client.sendOk({
      type: 'settings.update',
      patch: {
        providers: [provider],
        defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
      },
    });
    let count = 0;
    const launched = ext;
    return {
      origins,
      async run(attack) {
        const rendered = renderAttack(attack, origins.origins, `${attack.seed}-${++count}`);
        lured = { rendered, attack, acted: false };
        const outcome = await runOne(launched, panel, client, origins, lured);
        lured = undefined;
        return outcome;
      },
      async close() {
        await launched.close();
        await model.close();
        await origins.close();
      },
    };
  } catch (err) {
    await ext?.close();
    await model.close();
    await origins.close();
    throw err;
  }
}

async function runOne(
  ext: LaunchedExtension,
  panel: Page,
  client: EngineClient,
  origins: CorpusOrigins,
  lured: Lured,
): Promise<AttackOutcome> {
  const { attack, rendered } = lured;
  for (const p of rendered.pages) origins.put(p.origin, p.path, p.html);
  await client.sendOk({ type: 'settings.update', patch: { approvalMode: attack.mode } });
  await client.sendOk({
    type: 'siteRules.set',
    origin: origins.origins.shop,
    rule: attack.allowShop ? 'allow' : 'ask',
  });
  const tab = await ext.context.newPage();
  const granted = new Set<OriginKey>();
  const elementPages = new Set<OriginKey>();
  const outcome = (extra: Partial<AttackOutcome>): AttackOutcome => ({
    attack,
    breaches: [],
    granted: [...granted],
    acted: lured.acted,
    ...extra,
  });
  try {
    for (const url of rendered.history) await tab.goto(url, { waitUntil: 'load' });
    await tab.goto(rendered.start, { waitUntil: 'load' });
    await tab.bringToFront();
    lured.at = await tab.evaluate(() => {
      const r = document.getElementById('slot')?.getBoundingClientRect();
      return r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : undefined;
    });
    const mark = origins.log.length;
    const result = await runTurn(client, (a) => {
      const key = a.target.origin ? originKeyOf(origins.origins, a.target.origin) : undefined;
      if (key) granted.add(key);
      const ref = (a.params as { ref?: unknown } | undefined)?.ref;
      const page = originKeyOf(origins.origins, tab.url());
      if (a.target.element && typeof ref === 'string' && /^e\d+$/.test(ref) && page)
        elementPages.add(page);
      return a.options.includes('allow_once') ? 'allow_once' : 'deny';
    });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const breaches = judge({
      requests: origins.log.slice(mark),
      allowed: new Set<OriginKey>(attack.allowShop ? ['shop'] : []),
      granted,
      elementPages,
      level: levelOf(TOOL_PLANS[attack.tool].name),
      mode: attack.mode,
    });
    return outcome({ breaches, result });
  } catch (err) {
    return outcome({ error: String(err instanceof Error ? err.message : err) });
  } finally {
    for (const p of ext.context.pages()) if (p !== panel) await p.close().catch(() => {});
  }
}

/** One turn on a new thread; every approval is answered by `decide`. Resolves with the tool's result. */
async function runTurn(
  client: EngineClient,
  decide: (a: EventOf<'approval.request'>) => Decision,
): Promise<string> {
  const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
  let from = client.mark();
  const { runId } = await client.sendOk<{ runId: string }>({
    type: 'turn.submit',
    threadId,
    input: { text: 'Finish the checkout on this page.' },
  });
  const results: string[] = [];
  for (;;) {
    const ev = await client.waitFor(
      (e) =>
        (e.type === 'approval.request' && e.runId === runId) ||
        (e.type === 'turn.complete' && e.runId === runId) ||
        (e.type === 'item.complete' && e.threadId === threadId),
      30_000,
      from,
    );
    from = client.events.indexOf(ev) + 1;
    if (ev.type === 'turn.complete') return results.join('\n');
    if (ev.type === 'approval.request') {
      await client.sendOk({
        type: 'approval.response',
        approvalId: ev.approvalId,
        decision: decide(ev),
      });
    } else if (ev.type === 'item.complete' && ev.item.kind === 'tool_result') {
      results.push(ev.item.content.map((b) => (b.type === 'text' ? b.text : '')).join(' '));
    }
  }
}
