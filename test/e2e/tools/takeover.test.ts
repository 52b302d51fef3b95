/**
 * The user in the loop (issue 28), in Chromium against the built extension.
 *
 * A sign-in wall handed to the user (part 1).
 * The scripted model meets the sign-in page and calls request_takeover; the tab comes first; the
 * test plays the user (trusted typing into the page, which the run never sees) while the worker
 * is stopped and restarted; Done with a note hands back; the model's fresh snapshot shows the
 * signed-in page and the turn completes. The page's own record is the ground truth.
 *
 * A plan-mode turn (part 3): the model proposes a plan naming the fixture site; the user approves
 * it on the panel's card; the plan's writes run without an approval (the page's own record of the
 * sign-in); a navigation to the second origin, not in the plan, asks "not in the plan", and the
 * denial leaves the tab where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  PANEL_SIZE,
  screenshot,
  screenshots,
} from '../sidepanel/support';
import { call, resultText, startToolSession, type ToolSession } from './support';

let s: ToolSession;

beforeAll(async () => {
  s = await startToolSession();
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  await s?.close();
});

describe('hand-over to the user', () => {
  it('waits for the user across a worker restart; Done hands the page back', async () => {
    const { page, tabId } = await s.open('signin.html');
    const from = s.client.mark();
    const turn = s.turn('check my account', [
      call('request_takeover', { reason: 'Sign in to the site', tabId }),
      (c) => {
        expect(c.last()).toContain('The user has finished and handed the page back.');
        expect(c.last()).toContain('Signed in with my work account.');
        return call('browser_snapshot');
      },
      (c) => {
        expect(c.last()).toContain('Signed in as grace.');
        return { text: 'You are signed in.' };
      },
    ]);
    const req = await s.client.waitForEvent('interaction.request', () => true, 30_000, from);
    expect(req).toMatchObject({
      kind: 'takeover',
      payload: { reason: 'Sign in to the site', tabId },
    });

    // The user signs in themselves, with real key presses.
    await page.bringToFront();
    await page.getByLabel('Username').click();
    await page.keyboard.type('grace');
    await page.getByLabel('Password').click();
    await page.keyboard.type('hopper-1906');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#status').textContent()).toBe('Signed in as grace.');

    // The worker stops while the user is busy; the wait is still there after it starts again.
    await s.ext.stopServiceWorker();
    await s.client.waitForDisconnect();
    await s.client.reconnect();
    await s.client.sendOk({ type: 'initialize', subscribe: ['*'] });
    // The new worker shows the same wait again (the run's pending interaction).
    const again = await s.client.waitForEvent('initialized', () => true, 10_000, from);
    expect(JSON.stringify(again)).toContain(req.interactionId);
    // The user answers in the panel: the card is there again after the restart.
    const panel = s.panel;
    await panel.setViewportSize(PANEL_SIZE);
    await panel.bringToFront();
    await panel.locator('[data-action="threads"]').click();
    await panel.locator(`li[data-thread-id="${req.threadId}"] .thread-open`).click();
    const card = panel.locator('.takeover-card');
    await card.waitFor({ timeout: 15_000 });
    await panel.bringToFront();
    await card.locator('textarea').fill('Signed in with my work account.');
    await screenshots(panel, 'takeover-en');
    expect(await axeBothSchemes(panel, 'takeover')).toEqual([]);
    await chooseLanguage(panel, 'zh-CN');
    await backToChat(panel);
    await card.waitFor();
    await screenshot(panel, 'takeover-zh');
    expect(await axeBothSchemes(panel, 'takeover-zh')).toEqual([]);
    await chooseLanguage(panel, 'en');
    await backToChat(panel);
    await card.locator('textarea').fill('Signed in with my work account.');
    await card.locator('[data-action="takeover-done"]').click();
    const t = await turn;
    expect(t.complete.stopReason).toBe('end');
    expect(resultText(t.result('request_takeover'))).toContain('handed the page back');
    // What the user typed never reached the model or an event.
    expect(JSON.stringify(s.server.requests)).not.toContain('hopper-1906');
    expect(JSON.stringify(s.client.events)).not.toContain('hopper-1906');
  }, 120_000);

  it('plan mode: an approved plan acts unasked on its site and asks for another', async () => {
    // The fixture site's allow rule would cover its DOM writes by itself: take it away, so what
    // runs unasked runs by the plan alone.
    await s.client.sendOk({ type: 'siteRules.set', origin: s.main, rule: 'ask' });
    await s.client.sendOk({ type: 'settings.update', patch: { approvalMode: 'plan' } });
    const { page, tabId } = await s.open('signin.html');
    const from = s.client.mark();
    const seenCards: string[] = [];
    const turn = s.turn(
      'sign me in as ada',
      [
        (c) => {
          expect(c.toolNames).toContain('propose_plan');
          return call('propose_plan', {
            summary: 'Sign in to the site as ada.',
            steps: ['Type the username', 'Press Sign in'],
            sites: [
              { site: s.main, writes: ['type', 'click'], why: 'the sign-in form' },
              { site: s.other, writes: [] },
            ],
          });
        },
        (c) => {
          expect(c.last()).toContain('The user approved the plan.');
          expect(c.last()).toContain(`${s.main}: click, type`);
          return call('browser_snapshot');
        },
        (c) =>
          call('browser_type', { ref: c.ref(/textbox "Username"/), text: 'ada' }, [
            'browser_click',
            { ref: c.ref(/button "Sign in"/) },
          ]),
        () => call('browser_navigate', { url: `${s.other}/nav-a.html` }),
        (c) => {
          expect(c.last()).toContain('denied');
          return { text: 'Signed in; I stayed on the site.' };
        },
      ],
      {
        approve: async (req) => {
          // Only the navigation outside the plan asks, and the card says why.
          expect(req.tool.name).toBe('browser_navigate');
          expect(req.reason).toBe('not_in_plan');
          const card = s.panel.locator('.approval-card');
          await card.waitFor({ timeout: 15_000 });
          seenCards.push((await card.textContent()) ?? '');
          await screenshots(s.panel, 'plan-not-in-plan-en');
          return 'deny' as const;
        },
      },
    );
    const req = await s.client.waitForEvent(
      'interaction.request',
      (e) => e.kind === 'plan',
      30_000,
      from,
    );
    expect(req.payload).toMatchObject({
      sites: [
        { site: s.main, writes: ['click', 'type'] },
        { site: s.other, writes: [] },
      ],
    });
    const panel = s.panel;
    await panel.setViewportSize(PANEL_SIZE);
    await panel.bringToFront();
    await panel.locator('[data-action="threads"]').click();
    await panel.locator(`li[data-thread-id="${req.threadId}"] .thread-open`).click();
    const card = panel.locator('.plan-card');
    await card.waitFor({ timeout: 15_000 });
    await screenshots(panel, 'plan-en');
    expect(await axeBothSchemes(panel, 'plan')).toEqual([]);
    await chooseLanguage(panel, 'zh-CN');
    await backToChat(panel);
    await card.waitFor();
    await screenshot(panel, 'plan-zh');
    expect(await axeBothSchemes(panel, 'plan-zh')).toEqual([]);
    await chooseLanguage(panel, 'en');
    await backToChat(panel);
    await card.locator('[data-action="plan-approve"]').click();
    const t = await turn;
    expect(t.complete.stopReason).toBe('end');
    // The ground truth: the site received the sign-in; the tab never left it.
    expect(
      await page.evaluate(() => (window as unknown as { __got: unknown }).__got),
    ).toMatchObject({
      user: 'ada',
    });
    expect(await s.tabUrl(tabId)).toBe(`${s.main}/signin.html`);
    expect(t.approvals.map((a) => a.tool.name)).toEqual(['browser_navigate']);
    expect(seenCards[0]).toContain('not in the plan you approved');
    await s.client.sendOk({ type: 'settings.update', patch: { approvalMode: 'ask' } });
  }, 120_000);

  it('the user takes over unasked during a run and hands back with a note', async () => {
    const { page, tabId } = await s.open('signin.html');
    let think!: () => void;
    const thinking = new Promise<void>((r) => (think = r));
    const from = s.client.mark();
    const turn = s.turn('check my account', [
      // The model takes its time: the user presses Take over while it streams.
      async () => {
        await thinking;
        return call('browser_click', { ref: 'e1' });
      },
      (c) => {
        // The planned click never ran on the page the user changed; the model looks afresh
        // (Keel's notice with the tab as it is now), then reads the user's note.
        expect(c.last()).toContain('Not executed: the user took over the page');
        const sent = JSON.stringify(c.messages);
        expect(sent).toContain('The user handed the page back.');
        expect(sent).toContain(`The tab (${tabId}) now shows:`);
        expect(sent.indexOf('I signed in myself.')).toBeGreaterThan(
          sent.indexOf('The user handed the page back.'),
        );
        return { text: 'You are signed in.' };
      },
    ]);
    const start = await s.client.waitForEvent('turn.start', () => true, 30_000, from);
    const panel = s.panel;
    await panel.setViewportSize(PANEL_SIZE);
    await panel.bringToFront();
    await panel.locator('[data-action="threads"]').click();
    await panel.locator(`li[data-thread-id="${start.threadId}"] .thread-open`).click();
    await panel.locator('[data-action="take-over"]').click();
    await s.client.waitForEvent(
      'run.updated',
      (e) => e.run?.takeOverRequested === true,
      15_000,
      from,
    );
    think();
    const card = panel.locator('.takeover-card');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.textContent()).toContain('You have the page');
    await screenshots(panel, 'handback-en');
    expect(await axeBothSchemes(panel, 'handback')).toEqual([]);
    await chooseLanguage(panel, 'zh-CN');
    await backToChat(panel);
    await card.waitFor();
    expect(await card.textContent()).toContain('页面由你操作');
    await screenshot(panel, 'handback-zh');
    expect(await axeBothSchemes(panel, 'handback-zh')).toEqual([]);
    await chooseLanguage(panel, 'en');
    await backToChat(panel);
    await card.waitFor();

    // The user signs in with real key presses while holding the page.
    await page.bringToFront();
    await page.getByLabel('Username').click();
    await page.keyboard.type('ada');
    await page.getByLabel('Password').click();
    await page.keyboard.type('lovelace-1815');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#status').textContent()).toBe('Signed in as ada.');

    await panel.bringToFront();
    await card.locator('textarea').fill('I signed in myself.');
    await card.locator('[data-action="hand-back"]').click();
    const t = await turn;
    expect(t.complete.stopReason).toBe('end');
    expect(resultText(t.result('browser_click'))).toContain('the user took over the page');
    expect(JSON.stringify(s.server.requests)).not.toContain('lovelace-1815');
    expect(JSON.stringify(s.client.events)).not.toContain('lovelace-1815');
  }, 120_000);
});
