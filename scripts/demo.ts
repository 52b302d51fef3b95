/**
 * `npm run demo`: Keel doing a real task in a real browser, end to end.
 *
 *   npm run demo [-- --headed] [-- --dist DIR]
 *
 * Builds dist/ if needed, starts Chromium with the extension, serves a small shop on 127.0.0.1,
 * and asks the agent — through the engine protocol, from the side panel page — to "find the
 * cheapest USB-C cable under $10 and add two to the cart". The model is the built-in scripted demo
 * model unless ANTHROPIC_API_KEY or OPENAI_API_KEY (+ OPENAI_BASE_URL, MODEL) is set. The browser
 * tools, page snapshots and approvals are the real ones. Exits 0 only if the shop's cart really
 * holds two of the right cable. Writes demo-output/ (transcript, events, screenshots).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentEvent } from '../src/protocol';
import { EngineClient, launchExtension, type LaunchedExtension } from '../test/e2e/harness';
import { DEMO_MODEL_ID, startDemoModel } from './demo/model';
import type { ChatServer } from './demo/openai-server';
import { DIST, REPO_ROOT, ensureBuilt, ensureChromium } from './demo/setup';
import { formatPrice, productById, TARGET_PRODUCT_ID } from './demo/shop/catalog';
import { startShop, type CartState, type ShopServer } from './demo/shop/server';
import { Transcript } from './demo/transcript';

const TASK = 'Find the cheapest USB-C cable under $10 and add two to the cart.';
const QUANTITY = 2;
/** The whole run must end well inside two minutes. */
const DEADLINE_MS = 110_000;
const OUT_DIR = join(REPO_ROOT, 'demo-output');

interface ModelChoice {
  label: string;
  provider: {
    id: string;
    kind: 'anthropic' | 'openai';
    apiKey?: string;
    baseURL?: string;
    label?: string;
  };
  model: string;
  server?: ChatServer;
}

function parseArgs(argv: string[]) {
  const args = { headed: false, dist: DIST, siteRule: true };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--headed') args.headed = true;
    else if (argv[i] === '--dist') args.dist = resolve(argv[++i]);
    else if (argv[i] === '--no-site-rule') args.siteRule = false;
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log(
        'usage: npm run demo [-- --headed] [--dist DIR] [--no-site-rule]\n  --no-site-rule: do not pre-allow the shop; every click and typing asks, and the demo answers allow_once.\n  ANTHROPIC_API_KEY or OPENAI_API_KEY (+ OPENAI_BASE_URL, MODEL) to use a real model.',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${argv[i]} (try --help)`);
  }
  return args;
}

async function chooseModel(): Promise<ModelChoice> {
  const anthropic = process.env.ANTHROPIC_API_KEY;
  const openai = process.env.OPENAI_API_KEY;
  if (anthropic) {
    const model = process.env.MODEL || 'claude-sonnet-4-5';
    const baseURL = process.env.ANTHROPIC_BASE_URL;
    return {
      label: `Anthropic ${model} (ANTHROPIC_API_KEY)`,
      model,
      provider: {
        id: 'anthropic',
        kind: 'anthropic',
        apiKey: anthropic,
        label: 'Anthropic',
        ...(baseURL ? { baseURL } : {}),
      },
    };
  }
  if (openai) {
    const model = process.env.MODEL || 'gpt-4.1-mini';
    const baseURL = process.env.OPENAI_BASE_URL;
    return {
      label: `OpenAI-compatible ${model} at ${baseURL ?? 'api.openai.com'} (OPENAI_API_KEY)`,
      model,
      provider: {
        id: 'openai',
        kind: 'openai',
        apiKey: openai,
        label: 'OpenAI',
        ...(baseURL ? { baseURL } : {}),
      },
    };
  }
  const server = await startDemoModel();
  return {
    label: `the built-in scripted demo model at ${server.baseURL} (set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real one)`,
    model: DEMO_MODEL_ID,
    provider: {
      id: 'keel-demo',
      kind: 'openai',
      apiKey: 'demo-key',
      baseURL: server.baseURL,
      label: 'Keel demo model',
    },
    server,
  };
}

/** Prints every new engine event and answers approvals that still ask (allow_once). */
function follow(client: EngineClient, transcript: Transcript, threadId: string): () => void {
  let next = 0;
  const answered = new Set<string>();
  const timer = setInterval(() => {
    for (; next < client.events.length; next++) {
      const ev = client.events[next] as AgentEvent;
      if ('threadId' in ev && ev.threadId !== threadId) continue;
      transcript.event(ev);
      if (ev.type === 'approval.request' && !answered.has(ev.approvalId)) {
        answered.add(ev.approvalId);
        transcript.note(
          `the demo answers this approval: allow_once (${ev.tool.name} on ${ev.target.origin ?? ev.target.url ?? '?'})`,
        );
        void client
          .send({ type: 'approval.response', approvalId: ev.approvalId, decision: 'allow_once' })
          .catch((e) => transcript.note(`approval answer failed: ${String(e)}`));
      }
    }
  }, 25);
  return () => clearInterval(timer);
}

function verifyCart(cart: CartState): string[] {
  const problems: string[] = [];
  const target = productById(TARGET_PRODUCT_ID)!;
  const line = cart.items.find((i) => i.productId === target.id);
  if (!line)
    problems.push(
      `the cart does not contain ${target.name} (${formatPrice(target.priceCents)}), the cheapest USB-C cable under $10`,
    );
  else if (line.quantity !== QUANTITY)
    problems.push(`the cart holds ${line.quantity} of ${target.name}, not ${QUANTITY}`);
  for (const other of cart.items.filter((i) => i.productId !== target.id))
    problems.push(`the cart also holds ${other.quantity} × ${other.name}, which was not asked for`);
  return problems;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const transcript = new Transcript();
  const log = (s: string) => transcript.note(s);
  const deadline = setTimeout(() => {
    console.error(`\nDEMO FAILED: it did not finish within ${DEADLINE_MS / 1000} s.`);
    process.exit(3);
  }, DEADLINE_MS);
  deadline.unref();

  mkdirSync(OUT_DIR, { recursive: true });
  if (args.dist === DIST) ensureBuilt(log);
  else log(`using the extension in ${args.dist}`);
  ensureChromium();

  let headless = true;
  if (args.headed) {
    if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) headless = false;
    else log('--headed needs a display (DISPLAY is not set): running headless');
  }

  let shop: ShopServer | undefined;
  let model: ModelChoice | undefined;
  let ext: LaunchedExtension | undefined;
  let stopFollowing = () => {};
  let events: unknown[] = [];
  try {
    shop = await startShop();
    log(`demo shop "Voltage Goods" at ${shop.origin}/ (cart state: ${shop.origin}/api/cart)`);
    model = await chooseModel();
    log(`model: ${model.label}`);

    ext = await launchExtension({ dist: args.dist, headless });
    log(`Chromium started ${headless ? 'headless' : 'headed'} with Keel ${ext.extensionId}`);

    // The side panel page, opened as a tab (chrome.sidePanel.open needs a user gesture).
    const panel = await ext.openPanel();
    await panel.setViewportSize({ width: 420, height: 900 });
    let client = await EngineClient.connect(panel, { timeoutMs: 15_000 });
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    await client.sendOk({
      type: 'settings.update',
      patch: {
        providers: [model.provider],
        defaultModel: { providerId: model.provider.id, model: model.model },
      },
    });
    if (args.siteRule) {
      await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
      log(
        `site rule set: allow ${shop.origin} (the demo pre-approves its own shop, so clicks and typing there run without asking)`,
      );
    } else {
      log(
        `no site rule for ${shop.origin}: writes will ask, and the demo answers each approval with allow_once`,
      );
    }
    const { threadId } = await client.sendOk<{ threadId: string }>({
      type: 'thread.create',
      title: 'Demo: cheapest USB-C cable',
    });

    // Show that thread in the panel (it remembers its selection in sessionStorage), then reconnect.
    await panel.evaluate((id) => sessionStorage.setItem('keel.selectedThread', id), threadId);
    await panel.reload();
    client = await EngineClient.connect(panel, { timeoutMs: 15_000 });
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });

    // The thread's tab is the active tab when the turn starts: the shop, in front.
    const shopPage = await ext.context.newPage();
    await shopPage.setViewportSize({ width: 1100, height: 800 });
    await shopPage.goto(`${shop.origin}/`);
    await shopPage.bringToFront();
    log(`opened ${shop.origin}/ in a tab and brought it to the front`);

    const mark = client.mark();
    stopFollowing = follow(client, transcript, threadId);
    const text = `${TASK}\n\n(The shop is open in the current tab: ${shop.origin}/)`;
    const { runId } = await client.sendOk<{ turnId: string; runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text },
    });
    const turnTimeout = DEADLINE_MS - 25_000;
    const done = await client
      .waitForEvent('turn.complete', (e) => e.runId === runId, turnTimeout, mark)
      .catch(() => undefined);
    await sleep(150); // let the last events print
    stopFollowing();
    events = client.events;

    // Evidence: screenshots of the shop tab and the side panel, the transcript, every event.
    await shopPage.screenshot({ path: join(OUT_DIR, 'shop.png') }).catch(() => undefined);
    await panel.bringToFront().catch(() => undefined);
    await screenshotPanel(panel, join(OUT_DIR, 'side-panel.png'));
    log(`screenshots: demo-output/shop.png, demo-output/side-panel.png`);

    // The outcome, read from the shop itself.
    const cart = (await (await fetch(`${shop.origin}/api/cart`)).json()) as CartState;
    log(
      `cart (${shop.origin}/api/cart): ${cart.items.length ? cart.items.map((i) => `${i.quantity} × ${i.name} @ ${formatPrice(i.unitPriceCents)}`).join('; ') : 'empty'}; total ${formatPrice(cart.totalCents)}`,
    );
    const problems = verifyCart(cart);
    if (!done) problems.unshift(`the turn did not complete within ${turnTimeout / 1000} s`);
    else if (done.stopReason !== 'end')
      problems.unshift(
        `the turn ended with ${done.stopReason}${done.error ? `: ${done.error.message}` : ''}`,
      );
    if (client.invalidEvents.length)
      problems.push(`${client.invalidEvents.length} engine event(s) failed the protocol schema`);

    writeOutputs(transcript, events, shop);
    if (problems.length) {
      console.error(
        `\nDEMO FAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}\n(transcript: demo-output/transcript.txt)`,
      );
      return 1;
    }
    const target = productById(TARGET_PRODUCT_ID)!;
    console.log(
      `\nDEMO PASSED: the cart holds ${QUANTITY} × ${target.name} (${formatPrice(target.priceCents)} each), the cheapest USB-C cable under $10.`,
    );
    console.log(NEXT_STEPS);
    return 0;
  } catch (err) {
    stopFollowing();
    writeOutputs(transcript, events, shop);
    console.error(`\nDEMO FAILED: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await ext?.close();
    await model?.server?.close();
    await shop?.close();
    clearTimeout(deadline);
  }
}

/** What a user can do after a passing demo (the README's next sections say the same). */
const NEXT_STEPS = `
Next:
  - read what happened: demo-output/transcript.txt, demo-output/shop.png, demo-output/side-panel.png
  - watch it in a window (needs a display): npm run demo -- --headed
  - with a real model: ANTHROPIC_API_KEY=... npm run demo   (or OPENAI_API_KEY, OPENAI_BASE_URL, MODEL)
  - use Keel in your own Chrome: npm run build, then chrome://extensions → Developer mode →
    Load unpacked → dist/, and add your provider's key in the side panel's settings`;

/** The side panel page at side-panel width, scrolled to the end of the conversation. */
async function screenshotPanel(panel: Page, path: string): Promise<void> {
  await panel
    .evaluate(() => {
      const s = document.querySelector('.scroller');
      if (s) s.scrollTop = s.scrollHeight;
    })
    .catch(() => undefined);
  await panel.screenshot({ path }).catch(() => undefined);
}

function writeOutputs(
  transcript: Transcript,
  events: unknown[],
  shop: ShopServer | undefined,
): void {
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(
      join(OUT_DIR, 'transcript.txt'),
      `${transcript.lines.join('\n')}\n${shop ? `\nshop requests:\n${shop.log.map((l) => `  ${l}`).join('\n')}\n` : ''}`,
    );
    writeFileSync(join(OUT_DIR, 'events.json'), `${JSON.stringify(events, null, 1)}\n`);
  } catch (e) {
    console.error(`could not write demo-output/: ${String(e)}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(
      `DEMO FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    process.exit(1);
  },
);
