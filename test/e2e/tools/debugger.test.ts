/**
 * The L2 browser tools (chrome.debugger) through the engine (issue 5): browser_mouse (trusted
 * clicks the page sees with isTrusted true, CSS :hover through a real pointer move),
 * browser_keyboard, browser_dialog and browser_upload_file. Trusted input asks even on an allowed
 * site (approvalMode 'ask'); uploads always ask, with once-only options. The debugger detaches
 * when the turn ends, and nothing attaches to a chrome:// tab.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, resultText, startToolSession } from './support';
import type { ApprovalRequest, ToolSession } from './support';

let s: ToolSession;

beforeAll(async () => {
  s = await startToolSession();
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

/**
 * Whether Keel's debugger session is attached to the tab, seen from the panel page (an extension
 * page like the worker): a command through chrome.debugger works only while the extension is
 * attached. (chrome.debugger.getTargets() cannot tell: its `attached` flag is true for every page
 * here, because Playwright itself drives each page over CDP.)
 */
function keelDebuggerAttached(tabId: number): Promise<boolean> {
  return s.inPanel(async (id) => {
    const target = (await chrome.debugger.getTargets()).find((t) => t.tabId === id);
    if (!target) return false;
    return chrome.debugger.sendCommand({ tabId: id }, 'Runtime.evaluate', { expression: '1' }).then(
      () => true,
      () => false,
    );
  }, tabId);
}

const allowL2 = (seen: ApprovalRequest[]) => (req: ApprovalRequest) => {
  seen.push(req);
  return 'allow_once' as const;
};

describe('trusted input (L2) through the engine', () => {
  it('browser_mouse clicks as the user (isTrusted), moves for CSS :hover; browser_keyboard types; the debugger detaches after the turn', async () => {
    const { page, tabId } = await s.open('input-events.html');
    expect(await keelDebuggerAttached(tabId)).toBe(false);
    const during: boolean[] = [];
    let atComplete: boolean | undefined;
    const asked: ApprovalRequest[] = [];
    const t = await s.turn(
      'press the button for real',
      [
        call('browser_snapshot'),
        // The same button, first with a synthetic click (ignored by the page), then a real one.
        (c) => call('browser_click', { ref: c.ref(/button "Only real clicks"/) }),
        (c) => call('browser_mouse', { action: 'click', ref: c.ref(/button "Only real clicks"/) }),
        async (c) => {
          during.push(await keelDebuggerAttached(tabId));
          return call('browser_mouse', { action: 'move', ref: c.ref(/"Products menu"/) });
        },
        (c) =>
          call('browser_keyboard', {
            ref: c.ref(/textbox "Shortcut field"/),
            text: 'Hello',
            keys: ['Backspace'],
          }),
      ],
      {
        approve: allowL2(asked),
        onComplete: async () => {
          atComplete = await keelDebuggerAttached(tabId);
        },
      },
    );
    expect(t.complete.stopReason).toBe('end');

    // Trusted input asks even on an allowed site; the synthetic click did not.
    expect(asked.map((a) => [a.tool.name, a.tool.level, a.target.origin])).toEqual([
      ['browser_mouse', 'L2', s.main],
      ['browser_mouse', 'L2', s.main],
      ['browser_keyboard', 'L2', s.main],
    ]);

    const synthetic = t.result('browser_click');
    expect(synthetic.ok).toBe(true);
    const [click, move] = t.resultsOf('browser_mouse');
    expect(click.ok).toBe(true);
    expect(resultText(click)).toMatch(/^Clicked \(trusted\) e\d+\./);
    // The page's handler saw event.isTrusted === true (it ignored the synthetic click before).
    expect(await page.textContent('#out')).toBe('real click');
    // Attached on demand by the first trusted call.
    expect(during).toEqual([true]);

    expect(move.ok).toBe(true);
    expect(resultText(move)).toMatch(/^Moved the mouse to e\d+\./);
    // A CSS :hover menu opened: only a real pointer does that.
    expect(await page.isVisible('a[href="#lamps"]')).toBe(true);

    const keys = t.result('browser_keyboard');
    expect(keys.ok).toBe(true);
    expect(resultText(keys)).toMatch(
      /^Keyboard: typed 5 characters and pressed Backspace in e\d+\./,
    );
    expect(await page.inputValue('#field')).toBe('Hell');
    const pressed = await page.evaluate(
      () => (window as unknown as { __keys: { key: string; trusted: boolean }[] }).__keys,
    );
    expect(pressed.map((k) => k.key)).toEqual(['H', 'e', 'l', 'l', 'o', 'Backspace']);
    expect(pressed.every((k) => k.trusted)).toBe(true);

    // The run ended: Keel's debugger session is gone from the tab once turn.complete arrived.
    expect(atComplete).toBe(false);
    expect(await keelDebuggerAttached(tabId)).toBe(false);
    await page.close();
  });

  it('browser_dialog accepts a confirm and answers a prompt opened by trusted clicks', async () => {
    const { page, tabId } = await s.open('dialogs.html');
    // Keep Playwright from auto-dismissing: the tools must handle the dialogs.
    page.on('dialog', () => undefined);
    const asked: ApprovalRequest[] = [];
    const t = await s.turn(
      'delete everything, then tell it my name',
      [
        call('browser_snapshot'),
        (c) => call('browser_mouse', { action: 'click', ref: c.ref(/button "Delete all"/) }),
        call('browser_dialog', { action: 'accept' }),
        (c) => call('browser_mouse', { action: 'click', ref: c.ref(/button "Ask name"/) }),
        call('browser_dialog', { action: 'accept', promptText: 'Grace' }),
        call('browser_dialog', { action: 'dismiss' }),
      ],
      { approve: allowL2(asked) },
    );
    expect(t.complete.stopReason).toBe('end');
    expect(asked.map((a) => a.tool.name)).toEqual([
      'browser_mouse',
      'browser_dialog',
      'browser_mouse',
      'browser_dialog',
      'browser_dialog',
    ]);

    const [confirmClick, promptClick] = t.resultsOf('browser_mouse');
    expect(resultText(confirmClick)).toContain(
      'A JavaScript confirm dialog is open and blocks the page. Use browser_dialog to accept or dismiss it.',
    );
    expect(resultText(confirmClick)).toContain('dialog message: Delete everything?');
    expect(resultText(promptClick)).toContain('A JavaScript prompt dialog is open');
    expect(resultText(promptClick)).toContain('dialog message: Your name?');

    const [accepted, answered, none] = t.resultsOf('browser_dialog');
    expect(resultText(accepted)).toMatch(
      new RegExp(`^Accepted the confirm dialog in tab ${tabId}\\.`),
    );
    expect(resultText(accepted)).toContain('message: Delete everything?');
    expect(resultText(answered)).toMatch(
      new RegExp(`^Accepted the prompt dialog in tab ${tabId} with the given answer\\.`),
    );
    // No dialog left: a clear error, not a hang.
    expect(none.ok).toBe(false);
    expect(resultText(none)).toMatch(new RegExp(`^No JavaScript dialog is open in tab ${tabId}`));
    // The page got the answers.
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'name: Grace');
    await page.close();
  });

  it('browser_upload_file always asks (once-only options), then sets generated and local files', async () => {
    const { page } = await s.open('files.html');
    const file = join(mkdtempSync(join(tmpdir(), 'keel-tools-upload-')), 'notes.txt');
    writeFileSync(file, 'local notes');
    const asked: ApprovalRequest[] = [];
    const t = await s.turn(
      'upload the files',
      [
        call('browser_snapshot'),
        (c) =>
          call('browser_upload_file', {
            ref: c.ref(/"Photos"/),
            files: [
              { name: 'a.txt', text: 'alpha' },
              { name: 'b.csv', text: 'x,y' },
            ],
          }),
        async (c) => {
          await page.waitForFunction(() =>
            document.getElementById('out')?.textContent?.startsWith('photos'),
          );
          return call('browser_upload_file', { ref: c.ref(/"Résumé"/), paths: [file] });
        },
      ],
      { approve: allowL2(asked) },
    );
    expect(t.complete.stopReason).toBe('end');
    // Asked although the site is allowed, and "allow on this site" is not offered.
    expect(asked).toHaveLength(2);
    for (const a of asked) {
      expect(a.tool).toMatchObject({ name: 'browser_upload_file', level: 'L2', effects: 'write' });
      expect(a.target).toMatchObject({ origin: s.main, url: `${s.main}/files.html` });
      expect(a.options).toEqual(['allow_once', 'deny', 'deny_stop']);
    }
    expect(asked[0].params).toMatchObject({
      files: [
        { name: 'a.txt', text: 'alpha' },
        { name: 'b.csv', text: 'x,y' },
      ],
    });
    expect(asked[1].params).toMatchObject({ paths: [file] });

    const [generated, local] = t.resultsOf('browser_upload_file');
    expect(resultText(generated)).toContain('done: chose a.txt, b.csv');
    expect(resultText(local)).toContain('done: chose notes.txt');
    await page.waitForFunction(() =>
      document.getElementById('out')?.textContent?.startsWith('resume'),
    );
    expect(await page.textContent('#out')).toBe('resume -> notes.txt:11:local notes');
    const photos = await page.evaluate(() =>
      Array.from(
        (document.getElementById('photos') as HTMLInputElement).files ?? [],
        (f) => `${f.name}:${f.size}`,
      ),
    );
    expect(photos).toEqual(['a.txt:5', 'b.csv:3']);
    await page.close();
  });

  it('a chrome:// tab: trusted input is refused and no debugger attaches to it', async () => {
    const web = await s.open('nav-a.html');
    const chromePage = await s.ext.context.newPage();
    await chromePage.goto('chrome://version');
    const chromeTab = await s.tabIdOf(chromePage);
    await web.page.bringToFront();
    const t = await s.turn('click in the version page', [
      call('browser_mouse', { tabId: chromeTab, action: 'click', x: 100, y: 100 }),
      call('browser_keyboard', { tabId: chromeTab, keys: ['Control+a'] }),
    ]);
    expect(t.complete.stopReason).toBe('end');
    expect(t.approvals).toEqual([]);
    for (const r of [...t.resultsOf('browser_mouse'), ...t.resultsOf('browser_keyboard')]) {
      expect(r.ok).toBe(false);
      expect(r.outcome).toBe('denied');
      expect(resultText(r)).toBe(
        'Not allowed: browser-internal page (chrome://) — the agent may not read or act on it',
      );
    }
    expect(await keelDebuggerAttached(chromeTab)).toBe(false);
    await chromePage.close();
    await web.page.close();
  });
});
