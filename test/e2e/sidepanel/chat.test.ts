import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addProviderThroughUi,
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  composer,
  lastAssistant,
  openPanelSession,
  recordToolStates,
  screenshot,
  screenshots,
  toolStatesSeen,
  typeAndPress,
  waitIdle,
  type PanelSession,
} from './support';

/**
 * The chat screen through its real UI in Chromium, against a scripted model: streaming markdown,
 * the question form and the plan, steering, the queue, interrupt and Continue, edit & resend with
 * the branch switcher, fork, the thread list, both languages, and axe-core on each screen.
 */

const MARKDOWN = [
  '## Packing list',
  '',
  'Here is what **matters** most for a *weekend* away:',
  '',
  '- Book the train early',
  '- Pack light',
  '',
  '```js',
  'const bags = 1;',
  '```',
].join('\n');

const bodyOf = (r: { raw: string }) => r.raw;
const assistantText = async (page: PanelSession['page']) =>
  (await lastAssistant(page).textContent())?.trim();

describe('side panel: chat', () => {
  let s: PanelSession;

  beforeAll(async () => {
    s = await openPanelSession();
    s.titles.push(
      [/周末/, '周末出行打包'],
      [/weekend/, 'Weekend packing'],
      [/shirt/, 'Shirt order'],
      [/trip/i, 'Trip planning'],
      [/laptops/, 'Laptop comparison'],
      [/cat/, 'Cat names'],
    );
    await addProviderThroughUi(s.page, s.server);
  });

  afterAll(async () => {
    await s?.close();
  });

  it('streams a reply progressively and renders markdown with a working copy button', async () => {
    const { page } = s;
    await screenshot(page, 'empty-en');
    expect(await axeBothSchemes(page, 'empty')).toEqual([]);
    s.replies.push({ text: MARKDOWN, delayMs: 60, usage: { inputTokens: 1200, outputTokens: 48 } });
    await typeAndPress(page, 'How should I pack for a weekend trip?');
    await expect.poll(() => composer(page).inputValue()).toBe('');

    // Sample the assistant text while it streams: it must grow in several steps.
    const lengths = new Set<number>();
    let sawBusy = false;
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      const state = await page.evaluate(() => {
        const msg = [...document.querySelectorAll('.msg.assistant')].pop();
        return {
          busy: msg?.getAttribute('aria-busy') === 'true',
          len: msg?.querySelector('.markdown')?.textContent?.length ?? 0,
        };
      });
      if (state.busy) {
        sawBusy = true;
        if (state.len > 0) lengths.add(state.len);
      } else if (sawBusy) break;
      await page.waitForTimeout(40);
    }
    expect(sawBusy).toBe(true);
    expect(lengths.size).toBeGreaterThanOrEqual(3);
    await waitIdle(page);

    const msg = lastAssistant(page);
    await expect.poll(() => msg.locator('h2').textContent()).toBe('Packing list');
    expect(await msg.locator('strong').textContent()).toBe('matters');
    expect(await msg.locator('em').textContent()).toBe('weekend');
    expect(await msg.locator('li').count()).toBe(2);
    expect(await msg.locator('pre code').textContent()).toContain('const bags = 1;');
    expect(await page.locator('.turn-usage').last().textContent()).toMatch(/1\.2k in · 48 out/);

    const copy = msg.locator('button.copy-code');
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await copy.getAttribute('aria-label')).toBe('Copied');
    // What was copied pastes back into the composer (Ctrl+V reads the real clipboard).
    await composer(page).click();
    await page.keyboard.press('Control+V');
    await expect.poll(() => composer(page).inputValue()).toContain('const bags = 1;');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    expect(await composer(page).inputValue()).toBe('');

    await expect.poll(() => copy.textContent(), { timeout: 5_000 }).toBe('Copy');
    await page.waitForFunction(
      () => document.querySelector('.app-header h1')?.textContent === 'Weekend packing',
    );
    await screenshots(page, 'chat-en');
    expect(await axeBothSchemes(page, 'chat')).toEqual([]);
    expect(s.unscripted).toEqual([]);
  });

  it('shows the plan card for todo (no tool card) and answers ask_user forms through the UI', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    const plan = (statuses: string[]) => ({
      todos: [
        { id: 'size', text: 'Pick a size', status: statuses[0] },
        { id: 'color', text: 'Pick a color', status: statuses[1] },
        { id: 'order', text: 'Place the order', status: statuses[2] },
      ],
    });
    s.replies.push(
      {
        text: 'Let me plan this.',
        delayMs: 25,
        chunkChars: 12,
        toolCalls: [
          { name: 'todo', args: plan(['in_progress', 'pending', 'pending']) },
          {
            name: 'ask_user',
            args: {
              question: 'Which shirt do you want?',
              fields: [
                {
                  id: 'size',
                  label: 'Size',
                  type: 'choice',
                  options: ['S', 'M', 'L'],
                  required: true,
                },
                { id: 'note', label: 'Anything else?', type: 'text' },
              ],
            },
          },
        ],
      },
      (r) =>
        bodyOf(r).includes('\\"size\\":\\"M\\"') && bodyOf(r).includes('slim fit')
          ? {
              toolCalls: [
                { name: 'todo', args: plan(['done', 'in_progress', 'pending']) },
                { name: 'ask_user', args: { question: 'Which color?' } },
              ],
            }
          : { text: `form answer missing: ${bodyOf(r).slice(-400)}` },
      (r) =>
        bodyOf(r).includes('The user answered: Navy blue')
          ? {
              text: 'Ordered a **navy** shirt in M.',
              toolCalls: [{ name: 'todo', args: plan(['done', 'done', 'done']) }],
            }
          : { text: 'free-text answer missing' },
      // A call cut off mid-arguments: its card ends as Invalidated, and the model is told.
      { toolCalls: [{ name: 'ask_user', args: '{"question": "Gift wr' }] },
      { text: 'Your navy shirt (M, slim fit) is ordered.' },
    );
    await recordToolStates(page);
    await typeAndPress(page, 'Order me a shirt');

    // The plan: a card above the composer, never a tool card.
    const todo = page.locator('.todo-card');
    await todo.waitFor();
    await expect.poll(() => todo.locator('.todo-progress').textContent()).toBe('0 of 3 done');
    expect(await todo.locator('li').allTextContents()).toEqual([
      'Pick a size(in progress)',
      'Pick a color(pending)',
      'Place the order(pending)',
    ]);

    // The form: focus lands in it; a required choice is checked before sending.
    const form = page.locator('form.interaction-card');
    await form.waitFor();
    expect(await form.locator('.interaction-question').textContent()).toBe(
      'Which shirt do you want?',
    );
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.closest('form.interaction-card') !== null),
      )
      .toBe(true);
    await screenshots(page, 'ask-user-en');
    expect(await axeBothSchemes(page, 'ask-user')).toEqual([]);
    await form.getByRole('button', { name: 'Send answer' }).click();
    expect(await form.locator('.field-error').textContent()).toBe(
      'Please fill in the required fields.',
    );
    await form.getByLabel('M', { exact: true }).check();
    await form.getByLabel('Anything else?').fill('slim fit');
    await form.getByRole('button', { name: 'Send answer' }).click();

    // A second, free-text question: type the answer and press Enter.
    await expect
      .poll(() => form.locator('.interaction-question').textContent())
      .toBe('Which color?');
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    await page.keyboard.type('Navy blue');
    await page.keyboard.press('Enter');
    await form.waitFor({ state: 'detached' });

    await waitIdle(page);
    await expect.poll(() => assistantText(page)).toBe('Your navy shirt (M, slim fit) is ordered.');
    await expect.poll(() => todo.locator('.todo-progress').textContent()).toBe('3 of 3 done');
    const cards = page.locator('.tool-card');
    expect(await cards.locator('.tool-name').allTextContents()).toEqual([
      'Ask you',
      'Ask you',
      'Ask you',
    ]);
    expect(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))).toEqual([
      'result',
      'result',
      'invalid',
    ]);
    expect(await cards.locator('.tool-state').allTextContents()).toEqual([
      'Done',
      'Done',
      'Invalidated',
    ]);
    // On the way: Preparing… while the arguments stream, Running… while the form waits.
    expect(await toolStatesSeen(page)).toEqual(['executing', 'invalid', 'result', 'start']);
    expect(await page.locator('.tool-card', { hasText: /Plan|todo/ }).count()).toBe(0);

    // A card opens with the keyboard and shows the parameters and the result.
    await cards.first().locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => cards.first().locator('.tool-body').textContent())
      .toContain('Which shirt do you want?');
    expect(await cards.first().locator('.tool-body').textContent()).toContain('The user answered:');
    await screenshots(page, 'tool-cards-en');
    expect(s.unscripted).toEqual([]);
  });

  it('steers with Enter while a turn runs', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    s.replies.push(
      {
        text: 'Looking at ways to get there: trains, flights and buses, with prices for each of them.',
        delayMs: 120,
      },
      (r) =>
        bodyOf(r).includes('Prefer trains')
          ? { text: 'Trains it is: the 9:10 from Central.' }
          : { text: 'steer missing' },
    );
    await typeAndPress(page, 'Plan a day trip to the coast');
    await page.locator('.stop-btn').waitFor();
    await expect
      .poll(() => composer(page).getAttribute('placeholder'))
      .toBe('Add guidance to the running task…');
    expect(await page.locator('#composer-keys').textContent()).toBe(
      'Enter steers · Shift+Alt+Enter queues · Esc stops',
    );
    await lastAssistant(page).locator('.markdown').waitFor();

    await typeAndPress(page, 'Prefer trains');
    await expect.poll(() => composer(page).inputValue()).toBe('');
    const steered = page.locator('.msg.user', { has: page.locator('.badge.steered') });
    await steered.waitFor({ timeout: 15_000 });
    expect(await steered.locator('.user-text').textContent()).toBe('Prefer trains');
    await waitIdle(page);
    await expect.poll(() => assistantText(page)).toBe('Trains it is: the 9:10 from Central.');
    expect(await page.locator('.msg.user .user-text').allTextContents()).toEqual([
      'Plan a day trip to the coast',
      'Prefer trains',
    ]);
    expect(s.unscripted).toEqual([]);
  });

  it('queues with Shift+Alt+Enter, edits and removes queued messages, stops with Esc and continues', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    const before = s.turnRequests().length;
    s.replies.push(
      // Hangs mid-stream until the user stops it.
      {
        text: 'Comparing the three laptops on weight, battery and price.',
        hangMs: 30_000,
        hangAfterDeltas: 4,
      },
      (r) =>
        bodyOf(r).includes('Compare three laptops')
          ? { text: 'Done comparing: the **Air** wins.' }
          : { text: 'resume lost the request' },
      (r) =>
        bodyOf(r).includes('Then summarize in a short table')
          ? { text: '| Laptop | Score |\n|---|---|\n| Air | 9 |\n| Pro | 8 |' }
          : { text: 'queued message missing' },
    );
    await typeAndPress(page, 'Compare three laptops');
    await page.locator('.stop-btn').waitFor();
    await expect.poll(() => assistantText(page)).toContain('Comparing the three');

    await typeAndPress(page, 'Then summarize in a table', 'Shift+Alt+Enter');
    await typeAndPress(page, 'And add prices', 'Shift+Alt+Enter');
    const queue = page.locator('section.queue');
    await expect
      .poll(() => queue.locator('.queue-text').allTextContents())
      .toEqual(['Then summarize in a table', 'And add prices']);
    expect(await queue.locator('h2').textContent()).toBe('Queued (2)');
    expect(await composer(page).inputValue()).toBe('');
    await screenshots(page, 'queue-en');
    expect(await axeBothSchemes(page, 'queue')).toEqual([]);

    // Edit the first: the pencil opens it in place; Enter saves.
    await queue.getByRole('button', { name: 'Edit queued message 1' }).click();
    const editor = queue.getByLabel('Queued message 1');
    await expect.poll(() => editor.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Then summarize in a short table');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => queue.locator('.queue-text').first().textContent())
      .toBe('Then summarize in a short table');
    // Esc in the editor cancels without touching the run.
    await queue.getByRole('button', { name: 'Edit queued message 2' }).click();
    await page.keyboard.type(' and taxes');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => queue.locator('.queue-text').allTextContents())
      .toEqual(['Then summarize in a short table', 'And add prices']);
    expect(await page.locator('.stop-btn').isVisible()).toBe(true);
    // The bin removes the second.
    await queue.getByRole('button', { name: 'Remove queued message 2' }).click();
    await expect
      .poll(() => queue.locator('.queue-text').allTextContents())
      .toEqual(['Then summarize in a short table']);

    // Esc in the composer stops the run; the banner offers Continue.
    await composer(page).click();
    await page.keyboard.press('Escape');
    const banner = page.locator('.run-banner');
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.textContent()).toContain('The task was interrupted.');
    await page.locator('.stop-btn').waitFor({ state: 'detached' });
    // What had streamed stays in the thread, marked as interrupted (issue 19).
    const partial = page.locator('.msg.assistant[data-stop="interrupted"]');
    await expect.poll(() => partial.count()).toBe(1);
    expect(await partial.textContent()).toContain('Comparing the three');
    expect(await partial.textContent()).toContain('Interrupted: the answer stops here.');
    await screenshots(page, 'interrupted-en');
    // Interrupted is not over: the queue waits for the task to end.
    expect(await queue.locator('.queue-text').count()).toBe(1);
    await screenshots(page, 'run-banner-en');
    expect(await axeBothSchemes(page, 'run-banner')).toEqual([]);

    await banner.getByRole('button', { name: 'Continue' }).click();
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
    // The resumed turn ends, then the queued message starts as the next turn.
    await expect
      .poll(() => page.locator('.msg.user .user-text').allTextContents(), { timeout: 15_000 })
      .toEqual(['Compare three laptops', 'Then summarize in a short table']);
    await waitIdle(page);
    await expect
      .poll(() => lastAssistant(page).locator('table td').allTextContents())
      .toEqual(['Air', '9', 'Pro', '8']);
    expect(await queue.count()).toBe(0);
    expect(await page.locator('.msg.assistant').filter({ hasText: 'the Air wins' }).count()).toBe(
      1,
    );
    const mine = s.turnRequests().slice(before);
    expect(mine).toHaveLength(3);
    expect(mine[0].aborted).toBe(true);
    expect(mine.some((r) => r.raw.includes('And add prices'))).toBe(false);
    expect(s.unscripted).toEqual([]);
  });

  it('edit & resend makes a branch with a switcher; fork starts a new thread from a message', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    s.replies.push({ text: 'How about Miso?' }, { text: 'Try Bo.' }, (r) =>
      bodyOf(r).includes('Something longer') && !bodyOf(r).includes('Try Bo')
        ? { text: 'Try Bartholomew.' }
        : { text: 'wrong branch' },
    );
    await typeAndPress(page, 'Suggest a name for a cat');
    await waitIdle(page);
    await expect.poll(() => assistantText(page)).toBe('How about Miso?');
    await typeAndPress(page, 'Something shorter');
    await waitIdle(page);
    await expect.poll(() => assistantText(page)).toBe('Try Bo.');

    // The first message has no edit (nothing to branch from); the second has.
    const userRows = page.locator('.row-user_message');
    await userRows.first().hover();
    expect(await userRows.first().locator('[data-action="edit"]').count()).toBe(0);
    await userRows.nth(1).hover();
    await userRows.nth(1).locator('[data-action="edit"]').click();
    const editor = page.locator('form.msg.user.editing textarea');
    await expect.poll(() => editor.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Something longer');
    await page.keyboard.press('Enter');
    await waitIdle(page);
    await expect.poll(() => assistantText(page)).toBe('Try Bartholomew.');
    // The new version replaces the old one on screen (the old stays reachable).
    expect(await page.locator('.msg.user .user-text').allTextContents()).toEqual([
      'Suggest a name for a cat',
      'Something longer',
    ]);
    expect(await page.locator('.msg.assistant').count()).toBe(2);

    const switcher = page.locator('.branch-switcher');
    await expect.poll(() => switcher.locator('.branch-pos').textContent()).toBe('2 / 2');
    expect(await switcher.getByRole('button', { name: 'Next version' }).isDisabled()).toBe(true);
    await screenshots(page, 'branch-en');
    await switcher.getByRole('button', { name: 'Previous version' }).click();
    await expect.poll(() => switcher.locator('.branch-pos').textContent()).toBe('1 / 2');
    await expect
      .poll(() => page.locator('.msg.user .user-text').allTextContents())
      .toEqual(['Suggest a name for a cat', 'Something shorter']);
    expect(await assistantText(page)).toBe('Try Bo.');
    // Keyboard: Tab to "Next version" and press Enter.
    await switcher.getByRole('button', { name: 'Next version' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => switcher.locator('.branch-pos').textContent()).toBe('2 / 2');
    await expect.poll(() => assistantText(page)).toBe('Try Bartholomew.');

    // Fork from the first answer: a new thread whose history ends there.
    const firstAnswer = page.locator('.row-assistant_message').first();
    await firstAnswer.hover();
    await firstAnswer.getByRole('button', { name: 'Fork a new thread from here' }).click();
    await expect
      .poll(async () => (await page.locator('.msg').allTextContents()).map((t) => t.trim()))
      .toEqual(['Suggest a name for a cat', 'How about Miso?']);
    expect(await page.locator('.branch-switcher').count()).toBe(0);

    // The thread list: newest first, the fork marked, search filters by title.
    await page.locator('[data-action="threads"]').click();
    const rows = page.locator('.thread-row');
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.first().locator('.badge').allTextContents()).toContain('Fork');
    // Every task has ended: no thread may still claim to be running.
    expect(await rows.locator('.badge.running').count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('thread-search');
    await screenshots(page, 'threads-en');
    expect(await axeBothSchemes(page, 'threads')).toEqual([]);
    await page.keyboard.type('cat');
    await expect
      .poll(() => rows.locator('.thread-title').allTextContents())
      .toEqual(['Cat names (fork)', 'Cat names']);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await expect.poll(() => rows.count()).toBe(6);
    expect(s.unscripted).toEqual([]);
  });

  it('switches to 简体中文 at once and keeps every screen accessible', async () => {
    const { page } = s;
    await chooseLanguage(page, 'zh-CN');
    expect(await page.locator('.app-header h1').textContent()).toBe('设置');
    await backToChat(page);
    await page.locator('[data-action="threads"]').click();
    await expect
      .poll(() => page.locator('#thread-search').getAttribute('placeholder'))
      .toBe('搜索对话');
    await screenshots(page, 'threads-zh');
    await page.locator('.threads-toolbar').getByRole('button', { name: '新对话' }).click();
    s.replies.push({
      text: [
        '## 打包清单',
        '',
        '周末出行最**重要**的是：',
        '',
        '- 提前订好火车票',
        '- 轻装出行',
        '',
        '```sh',
        'echo 出发',
        '```',
      ].join('\n'),
      delayMs: 20,
    });
    await typeAndPress(page, '周末出游该怎么打包？');
    await expect.poll(() => page.locator('.app-header h1').textContent()).toBe('周末出行打包');
    await waitIdle(page);
    await expect.poll(() => lastAssistant(page).locator('h2').textContent()).toBe('打包清单');
    expect(await page.locator('#composer-keys').textContent()).toBe(
      'Enter 发送 · Shift+Enter 换行',
    );
    expect(await lastAssistant(page).locator('button.copy-code').textContent()).toBe('复制');
    expect(await page.locator('.turn-usage').last().textContent()).toMatch(/^输入 .* · 输出 /);
    await screenshots(page, 'chat-zh');
    expect(await axeBothSchemes(page, 'chat-zh')).toEqual([]);
    // An interrupted answer keeps its partial text, marked in Chinese too (issue 19).
    s.replies.push({
      text: '正在比较三款笔记本电脑的重量、续航和价格。',
      hangMs: 30_000,
      hangAfterDeltas: 3,
    });
    await typeAndPress(page, '比较三款笔记本电脑');
    await page.locator('.stop-btn').waitFor();
    await expect.poll(() => assistantText(page)).toContain('正在比较');
    await composer(page).click();
    await page.keyboard.press('Escape');
    await page.locator('.run-banner').waitFor({ timeout: 10_000 });
    const partialZh = page.locator('.msg.assistant[data-stop="interrupted"]').last();
    await expect.poll(() => partialZh.textContent()).toContain('已中断：回答到此为止。');
    expect(await partialZh.textContent()).toContain('正在比较');
    await screenshots(page, 'interrupted-zh');
    expect(await axeBothSchemes(page, 'interrupted-zh')).toEqual([]);
    await chooseLanguage(page, 'en');
    await backToChat(page);
  });
});
