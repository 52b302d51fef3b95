import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTab, runTurn, startSession, toolCalls, type Session } from './support';

/**
 * Issue 9, doors, from a page script's side (extends test/e2e/security-doors.test.ts, which covers
 * the manifest, the content-script world at the engine Port and a first postMessage). A page whose
 * content script has just served the agent (so its refs e1… exist) tries everything a page script
 * can: chrome.runtime.sendMessage / connect to Keel, window.postMessage and DOM CustomEvents in
 * every shape of the page channel (click, type, set_files, snapshot) and of the engine protocol
 * (create a thread, switch to 'act', allow its own origin, answer an approval), fetching Keel's
 * files and framing the side panel (which would let it clickjack an approval). Nothing works.
 */
describe('a page script cannot reach Keel', () => {
  let s: Session;

  beforeAll(async () => {
    s = await startSession();
  });

  afterAll(async () => {
    expect(s?.client.invalidEvents ?? []).toEqual([]);
    await s?.close();
  });

  it('no message, event, fetch or frame from the page reaches the content script or the engine', async () => {
    const { page } = await openTab(s, `${s.sites.site.origin}/doors.html`);
    // The agent reads the page first: the content script now holds refs the page could aim at.
    const read = await runTurn(s, 'What is on this page?');
    expect(toolCalls(read.items).map((c) => c.name)).toEqual(['browser_snapshot']);
    const threadsBefore = new Set(
      s.client.eventsOf('thread.updated').map((e) => e.thread.threadId),
    );
    const requestsBefore = s.model.requests.length;
    const mark = s.client.mark();

    const report = await page.evaluate(
      (id) =>
        (
          window as unknown as { tryEveryDoor(id: string): Promise<Record<string, unknown>> }
        ).tryEveryDoor(id),
      s.ext.extensionId,
    );
    // A web page has no chrome.runtime for Keel (no externally_connectable), and cannot load Keel's files.
    expect(report).toEqual({ runtime: 'absent', fetchManifest: 'refused' });

    // The page itself: nothing was clicked, typed or chosen, and no answer came back.
    expect(await page.textContent('#count')).toBe('0');
    expect(await page.inputValue('#name')).toBe('');
    expect(
      await page.evaluate(
        () => (document.getElementById('file') as HTMLInputElement).files?.length,
      ),
    ).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __heard: string[] }).__heard)).toEqual(
      [],
    );
    // The content script's world is not the page's.
    expect(await page.evaluate(() => '__keelContentScript' in window)).toBe(false);
    // The side panel cannot be framed by a page: no approval buttons to clickjack.
    const framed = page.frames().find((f) => f !== page.mainFrame());
    expect(framed, 'the iframe exists').toBeDefined();
    expect(framed!.url()).toMatch(/^chrome-error:/);
    expect(
      await framed!
        .locator('.app-header')
        .count()
        .catch(() => 0),
    ).toBe(0);

    // The engine: no thread, no model call, no approval, no settings or rule change.
    await page.waitForTimeout(300);
    expect(s.model.requests.length).toBe(requestsBefore);
    const after = s.client.events.slice(mark);
    expect(
      after.filter((e) => e.type === 'thread.updated' && !threadsBefore.has(e.thread.threadId)),
    ).toEqual([]);
    expect(
      after.filter(
        (e) =>
          e.type === 'approval.request' || e.type === 'settings.updated' || e.type === 'turn.start',
      ),
    ).toEqual([]);
    const from = s.client.mark();
    await s.client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const init = await s.client.waitForEvent('initialized', undefined, 10_000, from);
    expect(init.threads.map((t) => t.threadId)).toEqual([read.threadId]);
    expect(init.settings.approvalMode).toBe('ask');
    expect(init.settings.siteRules ?? []).toEqual([]);

    // And the agent still works on that page, asking before it acts.
    await page.bringToFront();
    const again = await runTurn(s, 'Read it again.');
    expect(again.complete.stopReason).toBe('end');
    await page.close();
  });
});
