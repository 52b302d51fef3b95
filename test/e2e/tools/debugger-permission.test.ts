/**
 * The built extension as a user installs it: `debugger` is an optional permission nobody has
 * granted yet (issue 15). In 'act' mode on an allowed site an L2 call would run without asking;
 * without the permission it asks, and when it is approved without Chrome's grant (an approval
 * from outside a user gesture, like a declined prompt) the page is untouched and the model is
 * told why and what to use instead. The worker starts and the L1 tools work without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, resultText, startToolSession } from './support';
import type { ApprovalRequest, ToolSession } from './support';

let s: ToolSession;

beforeAll(async () => {
  s = await startToolSession({ optionalPermissions: 'as-built' });
  await s.client.sendOk({ type: 'settings.update', patch: { approvalMode: 'act' } });
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

describe('without the optional debugger permission', () => {
  it('is not granted at install, and chrome.debugger is absent', async () => {
    const state = await s.inPanel(
      async () => ({
        granted: await chrome.permissions.contains({ permissions: ['debugger'] }),
        api: typeof chrome.debugger,
        optional: chrome.runtime.getManifest().optional_permissions ?? [],
      }),
      null,
    );
    expect(state).toEqual({ granted: false, api: 'undefined', optional: ['debugger'] });
  });

  it('an L2 call asks even in act mode, and without the grant it does nothing and names the L1 tool', async () => {
    const { page } = await s.open('input-events.html');
    const asked: ApprovalRequest[] = [];
    const t = await s.turn(
      'press the button for real, then the usual way',
      [
        call('browser_snapshot'),
        (c) => call('browser_mouse', { action: 'click', ref: c.ref(/button "Only real clicks"/) }),
        (c) => call('browser_click', { ref: c.ref(/"Products menu"/) }),
      ],
      {
        approve: (req) => {
          asked.push(req);
          return 'allow_once';
        },
      },
    );
    expect(t.complete.stopReason).toBe('end');
    // Only the L2 call asked (L1 on an allowed site in act mode does not), once-only, saying why.
    expect(asked.map((a) => [a.tool.name, a.options])).toEqual([
      ['browser_mouse', ['allow_once', 'deny', 'deny_stop']],
    ]);
    expect(asked[0].reason).toMatch(/^always_ask:.*debugger permission/);

    const mouse = t.result('browser_mouse');
    expect(mouse.ok).toBe(false);
    expect(resultText(mouse)).toMatch(/did not run and nothing was done on the page/);
    expect(resultText(mouse)).toMatch(/debugger permission/);
    expect(resultText(mouse)).toMatch(/browser_click/);
    expect(await page.textContent('#out')).not.toBe('real click');
    // L1 still works without the permission.
    expect(t.result('browser_click').ok).toBe(true);
    await page.close();
  });
});
