import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  composer,
  lastAssistant,
  openPanelSession,
  openSettings,
  screenshots,
  typeAndPress,
  waitIdle,
  type PanelSession,
} from './support';

/**
 * Settings made in the panel survive Chrome stopping the service worker, and the panel rides out a
 * stop while it is open: the "Reconnecting…" strip shows, the run finishes, the draft stays.
 */

const SHOP = 'https://shop.example';
const NEWS = 'https://news.example';

/** Stop the worker, reload the panel (its Port starts a fresh worker) and open Settings. */
async function restartAndReload(s: PanelSession): Promise<void> {
  await s.ext.stopServiceWorker();
  await s.page.reload();
  await s.page.locator('.app-header').waitFor();
  await openSettings(s.page);
}

const ruleOf = (page: Page, origin: string) =>
  page.locator(`.site-rules li[data-origin="${origin}"]`);

/** Scroll the settings screen so `selector` is at the top, for a screenshot of that part. */
async function scrollSettingsTo(page: Page, selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const view = document.querySelector('.settings-view')!;
    const el = document.querySelector(sel) as HTMLElement;
    view.scrollTop = el.offsetTop - (view as HTMLElement).offsetTop - 8;
  }, selector);
}

describe('side panel: settings and reconnecting', () => {
  let s: PanelSession;

  beforeAll(async () => {
    s = await openPanelSession();
    s.titles.push(
      [/weather/, 'Weather check'],
      [/capital/, 'Capitals quiz'],
      [/forecast/, 'Forecast'],
    );
  });

  afterAll(async () => {
    await s?.close();
  });

  it('first run: a message without a provider points to Settings, and is kept until a provider is added', async () => {
    const { page } = s;
    await typeAndPress(page, 'What is the forecast for tomorrow?');
    const hint = page.locator('.hint.error');
    await hint.waitFor();
    expect(await hint.locator('.hint-text').textContent()).toBe(
      'No model provider is set up yet. Add one in Settings.',
    );
    await expect.poll(() => composer(page).inputValue()).toBe('What is the forecast for tomorrow?');
    await hint.getByRole('button', { name: 'Open settings' }).click();
    await page.locator('.settings-view').waitFor();
    expect(
      await page
        .locator('section[aria-labelledby="set-providers"] .field-help')
        .first()
        .textContent(),
    ).toBe('Add a provider to start chatting.');

    // The add form is open on first run: an OpenAI-compatible endpoint (the scripted model).
    const form = page.locator('form.add-form').first();
    await form.locator('#provider-preset').selectOption('custom');
    await form.locator('#provider-label').fill('Scripted');
    await form.locator('#provider-url').fill(s.server.baseURL('openai'));
    await form.locator('#provider-key').fill('sk-e2e-secret');
    await form.locator('#provider-models').fill('gpt-4o-mini');
    await screenshots(page, 'settings-add-provider-en');
    expect(await axeBothSchemes(page, 'settings-add-provider')).toEqual([]);
    await form.locator('button[type="submit"]').click();
    await page.locator('.provider-row').waitFor();

    await backToChat(page);
    s.replies.push({ text: 'Mild and dry, 18 °C.' });
    await composer(page).press('Enter');
    await expect
      .poll(async () => (await lastAssistant(page).textContent())?.trim())
      .toBe('Mild and dry, 18 °C.');
    expect(await page.locator('.msg.user .user-text').allTextContents()).toEqual([
      'What is the forecast for tomorrow?',
    ]);
  });

  it('keeps provider, model, budget, approval mode, language and site rules across a worker stop', async () => {
    const { page } = s;
    await openSettings(page);
    const provider = page.locator('.provider-row');
    expect(await provider.locator('strong').textContent()).toBe('Scripted');
    expect(await provider.locator('.badge.ok').textContent()).toBe('Key saved');
    // The key never comes back to the page.
    expect(await page.content()).not.toContain('sk-e2e-secret');
    await screenshots(page, 'settings-en');
    expect(await axeBothSchemes(page, 'settings')).toEqual([]);

    // Model and budget: one form, one Save.
    expect(await page.locator('#default-model-provider').inputValue()).toBe('custom');
    expect(await page.locator('#default-model-model').inputValue()).toBe('gpt-4o-mini');
    await page.locator('#default-model-model').fill('gpt-4o');
    await page.locator('#token-budget').fill('50000');
    const modelForm = page.locator('section[aria-labelledby="set-model"] form');
    await modelForm.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => modelForm.locator('.save-status').textContent()).toBe('Saved');

    // Approvals: act on allowed sites.
    await page.getByRole('radio', { name: /Act on allowed sites/ }).check();
    await expect
      .poll(() =>
        page.locator('section[aria-labelledby="set-approval"] .save-status').textContent(),
      )
      .toBe('Saved');

    // Site rules: allow one site, block another, from the keyboard.
    await page.locator('#site-origin').fill('shop.example/cart');
    await page.keyboard.press('Enter');
    await ruleOf(page, SHOP).waitFor();
    await page.locator('#site-origin').fill(NEWS);
    await page.locator('#site-new-rule').selectOption('block');
    await page.locator('form[aria-label="Add a site rule"] button[type="submit"]').click();
    await ruleOf(page, NEWS).waitFor();
    expect(await ruleOf(page, SHOP).locator('select').inputValue()).toBe('allow');
    expect(await ruleOf(page, NEWS).locator('select').inputValue()).toBe('block');
    await scrollSettingsTo(page, 'section[aria-labelledby="set-approval"]');
    await screenshots(page, 'settings-permissions-en');

    // Language: the panel switches at once.
    await chooseLanguage(page, 'zh-CN');
    expect(await page.locator('.app-header h1').textContent()).toBe('设置');
    await page.evaluate(() => (document.querySelector('.settings-view')!.scrollTop = 0));
    await screenshots(page, 'settings-zh');
    expect(await axeBothSchemes(page, 'settings-zh')).toEqual([]);
    await scrollSettingsTo(page, 'section[aria-labelledby="set-approval"]');
    await screenshots(page, 'settings-permissions-zh');

    await restartAndReload(s);
    // The reloaded panel shows its built-in language until the restarted worker's settings
    // arrive (under load that takes a moment): wait for the stored language, then check the rest.
    await expect
      .poll(() => page.locator('.app-header h1').textContent(), { timeout: 10_000 })
      .toBe('设置');
    expect(await page.locator('#language').inputValue()).toBe('zh-CN');
    expect(await page.locator('.provider-row strong').textContent()).toBe('Scripted');
    expect(await page.locator('.provider-row .badge.ok').textContent()).toBe('密钥已保存');
    expect(await page.locator('#default-model-provider').inputValue()).toBe('custom');
    expect(await page.locator('#default-model-model').inputValue()).toBe('gpt-4o');
    expect(await page.locator('#token-budget').inputValue()).toBe('50000');
    expect(await page.locator('input[name="approval-mode"][value="act"]').isChecked()).toBe(true);
    expect(await ruleOf(page, SHOP).locator('select').inputValue()).toBe('allow');
    expect(await ruleOf(page, NEWS).locator('select').inputValue()).toBe('block');

    // Revoke the allowance; that too survives a stop.
    await ruleOf(page, SHOP)
      .getByRole('button', { name: `撤销 ${SHOP} 的规则` })
      .click();
    // Revoked = back to the default (ask), which the list does not show.
    await ruleOf(page, SHOP).waitFor({ state: 'detached' });
    await restartAndReload(s);
    expect(await ruleOf(page, NEWS).locator('select').inputValue()).toBe('block');
    expect(await ruleOf(page, SHOP).count()).toBe(0);

    // Back to English and the default approval mode for the next test.
    await chooseLanguage(page, 'en');
    await page.getByRole('radio', { name: /Ask before acting/ }).check();
    await expect
      .poll(() =>
        page.locator('section[aria-labelledby="set-approval"] .save-status').textContent(),
      )
      .toBe('Saved');

    // The settings reach the engine: the next turn goes to the chosen model.
    await backToChat(page);
    s.replies.push({ text: 'Sunny, 21 °C.' });
    await typeAndPress(page, 'What is the weather like?');
    await expect
      .poll(async () => (await lastAssistant(page).textContent())?.trim())
      .toBe('Sunny, 21 °C.');
    const turn = s.turnRequests().at(-1)!;
    expect((turn.body as { model?: string }).model).toBe('gpt-4o');
    expect(turn.auth).toBe('bearer');
    expect(s.unscripted).toEqual([]);
  });

  it('shows "Reconnecting…" while the worker is stopped, recovers the run and keeps the draft', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    const before = s.turnRequests().length;
    s.replies.push(
      {
        text: 'Paris is the capital of France, and Berlin is the capital of Germany, and Madrid of Spain.',
        delayMs: 150,
      },
      { text: 'Paris, Berlin and Madrid.' },
    );
    await typeAndPress(page, 'Name three capital cities');
    await lastAssistant(page).locator('.markdown').waitFor();

    // The user is typing the next message when Chrome stops the worker.
    await composer(page).click();
    await page.keyboard.type('And their populations?');
    // Record the banner from inside the page: it may be up for only a moment.
    await page.evaluate(() => {
      const w = window as unknown as { bannerSeen?: string };
      const check = () => {
        const el = document.querySelector('.connection-banner');
        if (el && !w.bannerSeen) w.bannerSeen = el.textContent ?? '';
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true });
    });
    await s.ext.stopServiceWorker();
    await page.waitForFunction(
      () => (window as unknown as { bannerSeen?: string }).bannerSeen !== undefined,
      undefined,
      { timeout: 10_000 },
    );
    expect(
      await page.evaluate(() => (window as unknown as { bannerSeen?: string }).bannerSeen),
    ).toBe('Reconnecting…');
    await page.locator('.connection-banner').waitFor({ state: 'detached', timeout: 15_000 });

    // The engine redoes the cut-off model call; the panel shows its answer once, and the draft is intact.
    await waitIdle(page);
    await expect
      .poll(async () => (await lastAssistant(page).textContent())?.trim(), { timeout: 15_000 })
      .toBe('Paris, Berlin and Madrid.');
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(await composer(page).inputValue()).toBe('And their populations?');
    expect(s.turnRequests().slice(before)).toHaveLength(2);

    // And it sends normally on the new worker.
    s.replies.push((r) =>
      r.raw.includes('And their populations?')
        ? { text: 'About 2.1, 3.7 and 3.3 million.' }
        : { text: 'draft lost' },
    );
    await composer(page).press('Enter');
    await waitIdle(page);
    await expect
      .poll(async () => (await lastAssistant(page).textContent())?.trim())
      .toBe('About 2.1, 3.7 and 3.3 million.');
    expect(await composer(page).inputValue()).toBe('');
    expect(s.unscripted).toEqual([]);
  });
});
