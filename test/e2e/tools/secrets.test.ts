/**
 * Site secrets typed by the built extension in Chromium (issue 28 part 2). The scripted model
 * writes only placeholders; the page's own record of what it received is the ground truth:
 * the username, the password and the current TOTP code arrive in the right fields on their own
 * site; the page's echo of the username comes back to the model as the placeholder; the same
 * placeholder aimed at a field of another site is refused at the page, which receives nothing;
 * and no value (nor the one-time code typed) appears in any model request, event, export, or
 * console line of the extension's worker and panel — in any of the encodings it could travel in.
 */
import { readFileSync } from 'node:fs';
import { decompressFrames, parseGIF } from 'gifuct-js';
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from 'mediabunny';
import type { Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/secrets/totp';
import {
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  openSettings,
  PANEL_SIZE,
  screenshot,
  screenshots,
} from '../sidepanel/support';
import { call, resultText, startToolSession, type ToolSession } from './support';

let s: ToolSession;
const PASSWORD = 'Tr0ub4dor-and-3-more-words';
const USERNAME = 'ada.lovelace.1815';
const SEED = 'JBSWY3DPEHPK3PXP';

/** Every console line of the extension's service worker (each one it starts) and its pages. */
const logs: string[] = [];

beforeAll(async () => {
  s = await startToolSession();
  const listen = (w: Worker) => w.on('console', (m) => logs.push(m.text()));
  for (const w of s.ext.context.serviceWorkers()) listen(w);
  s.ext.context.on('serviceworker', listen);
  s.ext.context.on('console', (m) => logs.push(m.text()));
  await s.client.sendOk({ type: 'siteRules.set', origin: s.other, rule: 'allow' });
  for (const [name, kind, value] of [
    ['username', 'text', USERNAME],
    ['password', 'password', PASSWORD],
    ['otp', 'totp', SEED],
  ] as const)
    await s.client.sendOk({ type: 'secrets.set', origin: s.main, name, kind, value });
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  await s?.close();
});

const host = (origin: string) => new URL(origin).host;

describe('site secrets', () => {
  it('are typed on their own site only, and come back as placeholders', async () => {
    const ph = (name: string) => `{{secret:${host(s.main)}/${name}}}`;
    const { page } = await s.open('signin.html');
    const t = await s.turn('sign me in', [
      call('browser_snapshot'),
      (c) =>
        call(
          'browser_type',
          { ref: c.ref(/textbox "Username"/), text: ph('username') },
          ['browser_type', { ref: c.ref(/textbox "Password"/), text: ph('password') }],
          ['browser_type', { ref: c.ref(/textbox "Code"/), text: ph('otp'), submit: true }],
        ),
      call('browser_snapshot'),
      { text: 'Signed in.' },
    ]);
    expect(t.complete.stopReason).toBe('end');
    const got = await page.evaluate(
      () => (window as unknown as { __got: Record<string, string> }).__got,
    );
    expect(got.user).toBe(USERNAME);
    expect(got.pass).toBe(PASSWORD);
    // The code of the moment of typing (this 30 s step or the one before, if it just turned).
    const now = Date.now();
    expect([await totpCode(SEED, now), await totpCode(SEED, now - 30_000)]).toContain(got.otp);
    // The page echoes the username: the model reads the placeholder.
    const snaps = t.resultsOf('browser_snapshot');
    expect(resultText(snaps[snaps.length - 1])).toContain(`Signed in as ${ph('username')}.`);
    expect(system(t.requests[0])).toContain(ph('password'));

    // The same secret aimed at the other site's field: refused where it would be typed.
    const other = await s.open('signin.html', s.other);
    const bad = await s.turn('sign in there too', [
      call('browser_snapshot'),
      (c) => call('browser_type', { ref: c.ref(/textbox "Password"/), text: ph('password') }),
      { text: 'That was refused.' },
    ]);
    const refused = bad.result('browser_type');
    expect(refused.ok).toBe(false);
    expect(resultText(refused)).toContain('a secret is typed only into its own site');
    expect(await other.page.locator('input[name="pass"]').inputValue()).toBe('');

    // Nowhere else: every request the model server received, every event, the export and the extension's console, in every encoding a value could travel in.
    // (The panel's Markdown and JSON files are made from this export.)
    const exported = await s.client.sendOk<unknown>({
      type: 'thread.export',
      threadId: t.threadId,
    });
    // The console listener hears the worker (a line of ours arrives), so silence means silence.
    const worker = s.ext.context
      .serviceWorkers()
      .find((w) => w.url().startsWith('chrome-extension:'));
    await worker?.evaluate(() => console.log('keel-e2e-console-probe'));
    await expect.poll(() => logs.includes('keel-e2e-console-probe')).toBe(true);
    const sinks: Record<string, string> = {
      'model requests': JSON.stringify(s.server.requests),
      events: JSON.stringify(s.client.events),
      export: JSON.stringify(exported),
      console: logs.join('\n'),
    };
    const codes = [now - 30_000, now, now + 30_000].map((at) => totpCode(SEED, at));
    const values = [PASSWORD, USERNAME, SEED, got.pass, got.user];
    for (const [sink, text] of Object.entries(sinks)) {
      for (const v of values)
        for (const form of encodings(v))
          expect(text.includes(form), `${sink} holds a form of a secret: ${form}`).toBe(false);
      // A six-digit code only counts as itself, not inside a longer number (timestamps).
      for (const code of await Promise.all(codes))
        expect(new RegExp(`(?<![0-9])${code}(?![0-9])`).test(text), `${sink}: code`).toBe(false);
    }
  }, 120_000);
  it('are added in Settings; the value is never shown again (en, zh, axe-clean)', async () => {
    const panel = s.panel;
    await panel.setViewportSize(PANEL_SIZE);
    await panel.bringToFront();
    await openSettings(panel);
    const section = panel.locator('section[aria-labelledby="set-secrets"]');
    await section.locator('#secret-site').fill(s.other);
    await section.locator('#secret-name').fill('pin');
    await section.locator('#secret-value').fill('4711-0815');
    await section.locator('button[type="submit"]').click();
    const placeholder = `{{secret:${host(s.other)}/pin}}`;
    await section.locator(`li[data-placeholder="${placeholder}"]`).waitFor();
    expect(await section.locator('#secret-value').inputValue()).toBe('');
    expect(await panel.content()).not.toContain('4711-0815');
    await section.scrollIntoViewIfNeeded();
    await screenshots(panel, 'secrets-en');
    expect(await axeBothSchemes(panel, 'secrets')).toEqual([]);
    await chooseLanguage(panel, 'zh-CN');
    await section.scrollIntoViewIfNeeded();
    await screenshot(panel, 'secrets-zh');
    expect(await axeBothSchemes(panel, 'secrets-zh')).toEqual([]);
    await chooseLanguage(panel, 'en');
  }, 60_000);
});

interface Frame {
  runId: string;
  summary: string;
  width: number;
  height: number;
}

/**
 * A task's recording (issue 30) on the sign-in page: three page actions, three frames; the
 * password's field is painted over in every frame that shows it, no summary holds a secret; the
 * panel exports the task as a GIF and a WebM that open back with three frames of the same size,
 * and plays it back; a site marked private records nothing.
 */
describe('task recording', () => {
  const recording = (threadId: string) =>
    s.client.sendOk<{ frames: Frame[]; threadBytes: number }>({
      type: 'thread.recording',
      threadId,
    });
  const download = async (panel: Page, format: string) => {
    const [file] = await Promise.all([
      panel.waitForEvent('download'),
      panel.locator(`[data-export="${format}"]`).click(),
    ]);
    return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) };
  };

  it('records each page action, masks the password, exports GIF and WebM, plays back', async () => {
    const ph = `{{secret:${host(s.main)}/password}}`;
    const { page } = await s.open('signin.html');
    const t = await s.turn('record me signing in', [
      call('browser_snapshot'),
      (c) =>
        call(
          'browser_type',
          { ref: c.ref(/textbox "Username"/), text: 'grace' },
          ['browser_type', { ref: c.ref(/textbox "Password"/), text: ph }],
          ['browser_click', { ref: c.ref(/button "Sign in"/) }],
        ),
      { text: 'Signed in.' },
    ]);
    expect(t.complete.stopReason).toBe('end');
    // Frames are made after the results, at Chrome's pace of captures: wait for the third.
    await expect
      .poll(async () => (await recording(t.threadId)).frames.length, { timeout: 10_000 })
      .toBe(3);
    const { frames, threadBytes } = await recording(t.threadId);
    expect(frames.map((f) => f.summary)).toEqual([
      'Typed “grace” into “Username”',
      'Typed “••••••••” into “Password”',
      'Clicked “Sign in”',
    ]);
    expect(threadBytes).toBeGreaterThan(0);
    for (const form of encodings(PASSWORD))
      expect(JSON.stringify(frames).includes(form)).toBe(false);
    // Where the password field is in the page, and how wide the page is.
    const field = await page.evaluate(() => {
      const r = document.querySelector('input[name="pass"]')!.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, vw: window.innerWidth };
    });

    const panel = s.panel;
    await panel.setViewportSize(PANEL_SIZE);
    await panel.bringToFront();
    await backToChat(panel);
    await panel.locator('[data-action="threads"]').click();
    await panel.locator(`.thread-row[data-thread-id="${t.threadId}"] .thread-open`).click();
    await panel.locator('main.chat').waitFor();
    await panel.locator('[data-action="export"]').click();
    await panel.locator('.export-pop').waitFor();

    const gif = await download(panel, 'gif');
    expect(gif.name).toBe(`keel-${t.threadId}-task.gif`);
    const parsed = parseGIF(
      gif.bytes.buffer.slice(gif.bytes.byteOffset, gif.bytes.byteOffset + gif.bytes.byteLength),
    );
    const gifFrames = decompressFrames(parsed, true);
    expect(gifFrames).toHaveLength(3);
    const width = Math.ceil(frames[0].width / 2) * 2;
    expect(parsed.lsd.width).toBe(width);
    expect(parsed.lsd.height).toBeGreaterThan(frames[0].height);
    // The password field's box, in the GIF's pixels (the mask reaches 2 px past it): the mask's
    // grey in each frame after it was typed, give or take the JPEG and GIF palette noise (the
    // dots, the letters or the page's white would be far outside it).
    const k = frames[0].width / field.vw;
    // (Inset a little: JPEG rings where the mask meets the page's dark label text.)
    const box = {
      x0: Math.ceil(field.x * k) + 2,
      x1: Math.floor((field.x + field.width) * k) - 2,
      y0: Math.ceil(field.y * k) + 1,
      y1: Math.floor((field.y + field.height) * k) - 1,
    };
    expect(box.x1 - box.x0).toBeGreaterThan(10);
    expect(box.y1 - box.y0).toBeGreaterThan(2);
    for (const f of gifFrames.slice(1)) {
      const spread = [0, 1, 2].map(() => ({ lo: 255, hi: 0 }));
      for (let y = box.y0; y < box.y1; y++)
        for (let x = box.x0; x < box.x1; x++) {
          const at = (y * f.dims.width + x) * 4;
          for (const c of [0, 1, 2]) {
            spread[c].lo = Math.min(spread[c].lo, f.patch[at + c]);
            spread[c].hi = Math.max(spread[c].hi, f.patch[at + c]);
          }
        }
      for (const c of spread) {
        expect(c.lo).toBeGreaterThanOrEqual(96);
        expect(c.hi).toBeLessThanOrEqual(160);
      }
    }

    const webm = await download(panel, 'webm');
    expect(webm.name).toBe(`keel-${t.threadId}-task.webm`);
    const input = new Input({ source: new BufferSource(webm.bytes), formats: ALL_FORMATS });
    const video = await input.getPrimaryVideoTrack();
    expect(video?.codec).toBe('vp8');
    expect(video?.displayWidth).toBe(parsed.lsd.width);
    expect(video?.displayHeight).toBe(parsed.lsd.height);
    let packets = 0;
    for await (const _ of new EncodedPacketSink(video!).packets()) packets++;
    expect(packets).toBe(3);
    expect(await input.computeDuration()).toBeCloseTo(3, 1);

    await panel.locator('[data-export="play"]').click();
    const player = panel.locator('.recording-player');
    await player.waitFor();
    await player.locator('[data-recording="pause"]').click();
    const prev = player.locator('[data-recording="prev"]');
    while (await prev.isEnabled()) await prev.click();
    expect(await player.locator('[data-recording="position"]').textContent()).toBe('Step 1 of 3');
    await player.locator('[data-recording="next"]').click();
    // The caption is the tool card's line, in the panel's language.
    expect(await player.locator('[data-recording="caption"]').textContent()).toBe(
      'Typed “••••••” into Password',
    );
    await screenshots(panel, 'recording-en');
    await player.locator('[data-recording="close"]').click();
    await player.waitFor({ state: 'hidden' });
    // The same player in Chinese, for the user guide.
    await chooseLanguage(panel, 'zh-CN');
    await backToChat(panel);
    await panel.locator('[data-action="export"]').click();
    await panel.locator('[data-export="play"]').click();
    await player.locator('[data-recording="pause"]').click();
    expect(await player.locator('[data-recording="prev"]').textContent()).toBe('上一步');
    await screenshot(panel, 'recording-zh');
    await player.locator('[data-recording="close"]').click();
    await chooseLanguage(panel, 'en');

    // Marked private in Settings: the same page records nothing more.
    const section = panel.locator('section[aria-labelledby="set-private"]');
    await section.locator('#private-origin').fill(`${s.main}/signin.html`);
    await section.locator('[data-action="add-private-site"]').click();
    await section.locator(`li[data-private-origin="${s.main}"]`).waitFor();
    await section.scrollIntoViewIfNeeded();
    await screenshot(panel, 'private-sites-en');
    await page.bringToFront();
    const quiet = await s.turn('once more', [
      call('browser_snapshot'),
      (c) => call('browser_click', { ref: c.ref(/button "Sign in"/) }),
      { text: 'Done.' },
    ]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await recording(quiet.threadId)).frames).toEqual([]);
    await s.client.sendOk({ type: 'settings.update', patch: { privateSites: [] } });
  }, 60_000);
});

function system(r: { body: { messages?: unknown[] } }): string {
  const first = (r.body.messages ?? [])[0] as { role?: string; content?: unknown } | undefined;
  return first?.role === 'system' ? String(first.content) : '';
}

/** The forms a value could leak in: as is, URL- and JSON-escaped, base64, upper and lower case. */
function encodings(value: string): string[] {
  const forms = [
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString('base64').replace(/=+$/, ''),
    value.toLowerCase(),
    value.toUpperCase(),
  ];
  return [...new Set(forms)];
}
