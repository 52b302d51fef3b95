/**
 * Helpers for the side panel UI tests: one browser with the built extension, the panel page as a
 * 400 px tab, a scripted model behind it, and small drivers that act only through the UI
 * (clicks, typing, keys), plus screenshots and axe-core checks.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { DEFAULT_DIST, launchExtension, startModelServer } from '../harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from '../harness';

export const SCREENSHOTS = resolve('test-results/screenshots');
export const PANEL_SIZE = { width: 400, height: 800 };

/** The engine's title request on a thread's first turn (answered apart from the turn's script). */
export const isTitleRequest = (r: RecordedRequest) =>
  JSON.stringify(r.body).includes('You write titles');

/** A reply for the next turn request, or a function deciding from the request. */
export type Reply = ScriptedReply | ((r: RecordedRequest) => ScriptedReply);

export interface PanelSession {
  ext: LaunchedExtension;
  server: ModelServer;
  page: Page;
  /** Replies for the next turn (non-title) requests, consumed in order. */
  replies: Reply[];
  /** Titles by a word of the user's first message; unmatched ones get `Conversation`. */
  titles: Array<[RegExp, string]>;
  /** Turn requests that found no scripted reply (expect []). */
  unscripted: RecordedRequest[];
  turnRequests(): RecordedRequest[];
  close(): Promise<void>;
}

export async function openPanelSession(): Promise<PanelSession> {
  // KEEL_E2E_DIST: try another build (e.g. one with work in progress) without touching dist/.
  const dist = process.env.KEEL_E2E_DIST ? resolve(process.env.KEEL_E2E_DIST) : DEFAULT_DIST;
  if (!existsSync(join(dist, 'manifest.json'))) {
    throw new Error(`${dist} has no build: run \`npx vite build\` first.`);
  }
  const replies: Reply[] = [];
  const titles: Array<[RegExp, string]> = [];
  const unscripted: RecordedRequest[] = [];
  const server = await startModelServer({
    respond(r) {
      if (isTitleRequest(r)) {
        const found = titles.find(([re]) => re.test(r.raw));
        return { text: found ? found[1] : 'Conversation' };
      }
      const next = replies.shift();
      if (!next) {
        unscripted.push(r);
        return { text: 'Unscripted reply.' };
      }
      return typeof next === 'function' ? next(r) : next;
    },
  });
  const ext = await launchExtension({ dist });
  const page = await ext.openPanel();
  await page.setViewportSize(PANEL_SIZE);
  page.setDefaultTimeout(10_000);
  await page.locator('.app-header').waitFor();
  return {
    ext,
    server,
    page,
    replies,
    titles,
    unscripted,
    turnRequests: () => server.requests.filter((r) => !isTitleRequest(r)),
    async close() {
      await ext.close();
      await server.close();
    },
  };
}

// ---- UI drivers ------------------------------------------------------------------------------

export const composer = (page: Page) => page.locator('#composer-input');

/** Click into the composer, type like a user and press `key` (Enter sends). */
export async function typeAndPress(page: Page, text: string, key = 'Enter'): Promise<void> {
  await composer(page).click();
  await page.keyboard.type(text);
  await page.keyboard.press(key);
}

export async function openSettings(page: Page): Promise<void> {
  if (!(await page.locator('.settings-view').isVisible()))
    await page.locator('[data-action="settings"]').click();
  await page.locator('.settings-view').waitFor();
}

/** The header's left button: Threads from the chat, Back from the other screens. */
export async function backToChat(page: Page): Promise<void> {
  if (!(await page.locator('main.chat').isVisible()))
    await page.locator('.app-header .icon-btn').first().click();
  await page.locator('main.chat').waitFor();
}

/** First run through Settings: an OpenAI-compatible provider pointing at the scripted server. */
export async function addProviderThroughUi(
  page: Page,
  server: ModelServer,
  model = 'gpt-4o-mini',
): Promise<void> {
  await openSettings(page);
  const form = page.locator('form.add-form').first();
  await form.locator('#provider-preset').selectOption('custom');
  await form.locator('#provider-label').fill('Scripted');
  await form.locator('#provider-url').fill(server.baseURL('openai'));
  await form.locator('#provider-key').fill('sk-e2e-secret');
  await form.locator('#provider-models').fill(model);
  await form.locator('button[type="submit"]').click();
  await page.locator('.provider-row').first().waitFor();
  await backToChat(page);
}

/** Select the display language in Settings (value '' = follow the browser). */
export async function chooseLanguage(page: Page, value: '' | 'en' | 'zh-CN'): Promise<void> {
  await openSettings(page);
  await page.locator('#language').selectOption(value);
  await page.waitForFunction((lang) => document.documentElement.lang === (lang || 'en'), value);
}

/** Where the conversation's last assistant message is. */
export const lastAssistant = (page: Page): Locator => page.locator('.msg.assistant').last();

/** Wait until no run is active: the Stop button is gone and nothing streams. */
export async function waitIdle(page: Page, timeout = 20_000): Promise<void> {
  await page.locator('.stop-btn').waitFor({ state: 'detached', timeout });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, {
    timeout,
  });
}

/**
 * Record every tool card state that shows up from now on (some last only a moment), to read
 * later with `toolStatesSeen`.
 */
export async function recordToolStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { toolStates: string[] };
    w.toolStates = [];
    const note = () => {
      for (const el of document.querySelectorAll('.tool-card[data-state]')) {
        const st = el.getAttribute('data-state')!;
        if (!w.toolStates.includes(st)) w.toolStates.push(st);
      }
    };
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
}

export const toolStatesSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { toolStates: string[] }).toolStates.slice().sort());

// ---- screenshots and accessibility -----------------------------------------------------------

export async function screenshot(
  page: Page,
  name: string,
  scheme: 'light' | 'dark' = 'light',
  keepHover = false,
): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Park the mouse on the header title, where hovering shows nothing.
  if (!keepHover) await page.mouse.move(200, 22);
  await page.emulateMedia({ colorScheme: scheme });
  // The hover and colour-scheme styles are rendered once two frames have passed; the screenshot
  // itself finishes any transition they started. No caret blinking in the pictures.
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, caret: 'hide', animations: 'disabled' });
  return path;
}

/** Light and dark variants: `<name>.png` and `<name>-dark.png`. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await screenshot(page, `${name}-dark`, 'dark');
  await screenshot(page, name, 'light');
}

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core on the page as it is now; returns the serious and critical violations. The script goes
 * in with addScriptTag; the panel's CSP (script-src 'self') refuses inline scripts, so it falls
 * back to evaluating the same file through the DevTools protocol, which CSP does not govern.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const loaded = () =>
    page.evaluate(() => typeof (window as { axe?: unknown }).axe !== 'undefined');
  if (!(await loaded())) {
    await page.addScriptTag({ path: AXE_PATH }).catch(() => undefined);
    if (!(await loaded())) {
      const { readFileSync } = await import('node:fs');
      await page.evaluate(readFileSync(AXE_PATH, 'utf8'));
    }
  }
  const results = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{ target: unknown[] }>;
            }>;
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** axe in both color schemes (contrast differs), as one list tagged by scheme and screen. */
export async function axeBothSchemes(page: Page, screen: string): Promise<string[]> {
  const out: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of await axeViolations(page))
      out.push(
        `${screen}/${scheme}: ${v.id} (${v.impact}) ${v.help} @ ${v.targets.slice(0, 3).join(' | ')}`,
      );
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return out;
}

/** Opens a thread from the panel's thread list, the panel sized as a side panel and in front. */
export async function openThread(panel: Page, threadId: string): Promise<void> {
  await panel.setViewportSize(PANEL_SIZE);
  await panel.bringToFront();
  await panel.locator('[data-action="threads"]').click();
  await panel.locator(`li[data-thread-id="${threadId}"] .thread-open`).click();
}

/**
 * The docs' pictures of the screen the panel shows: `<name>-en` light and dark, then `<name>-zh`,
 * with axe in both schemes each time. `ready` brings the screen back after the language switch
 * (the panel returns to the chat). Returns the axe findings and leaves the panel in English.
 */
export async function picturesInBothLanguages(
  panel: Page,
  name: string,
  ready: () => Promise<void>,
): Promise<string[]> {
  await screenshots(panel, `${name}-en`);
  const found = await axeBothSchemes(panel, name);
  await chooseLanguage(panel, 'zh-CN');
  await backToChat(panel);
  await ready();
  await screenshot(panel, `${name}-zh`);
  found.push(...(await axeBothSchemes(panel, `${name}-zh`)));
  await chooseLanguage(panel, 'en');
  await backToChat(panel);
  return found;
}
