/**
 * Site secrets typed by the built extension in Chromium (issue 28 part 2). The scripted model
 * writes only placeholders; the page's own record of what it received is the ground truth:
 * the username, the password and the current TOTP code arrive in the right fields on their own
 * site; the page's echo of the username comes back to the model as the placeholder; the same
 * placeholder aimed at a field of another site is refused at the page, which receives nothing;
 * and no value (nor the one-time code typed) appears in any model request, event, export, or
 * console line of the extension's worker and panel — in any of the encodings it could travel in.
 */
import type { Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/secrets/totp';
import {
  axeBothSchemes,
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
