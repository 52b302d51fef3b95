import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/protocol';
import type { RecordedRequest, ScriptedToolCall } from '../harness';
import { pageSite, type PageSite } from './receiver-sites';
import {
  currentTurn,
  openTab,
  refNamed,
  resultText,
  runTurn,
  startSession,
  textOf,
  toolResults,
  type ApprovalRequest,
  type Session,
} from './support';

/**
 * Input is delivered only after checking its receiver at the instant of dispatch
 * (docs/permissions.md "Receiver checks at dispatch"). With the strongest settings a user can
 * choose (approval mode "act", an allow rule for the shop), a shop page puts a victim site's
 * frame where the agent's input lands: a transparent frame over its button, focus moved into the
 * frame between two keys. The oracle is the victim's own server: it never receives the POST
 * unless the user approved an approval naming the victim.
 */

/** A model that makes `steps` calls in order, each built from the tool results seen so far. */
function plan(s: Session, steps: Array<(seen: string) => ScriptedToolCall>): void {
  s.gullible.reply = (r: RecordedRequest) => {
    const turn = currentTurn(r);
    const seen = turn
      .filter((m) => m.role === 'tool')
      .map(textOf)
      .join('\n');
    const made = turn.flatMap((m) => m.tool_calls ?? []).length;
    const step = steps[made];
    return step ? { text: 'Working.', toolCalls: [step(seen)] } : { text: 'Done.' };
  };
}

/** Whether `part` is `whole` with some characters left out. */
function isSubsequence(part: string, whole: string): boolean {
  let j = 0;
  for (const c of whole) if (j < part.length && part[j] === c) j++;
  return j === part.length;
}

const snapshot = (): ScriptedToolCall => ({ name: 'browser_snapshot', args: {} });
const refOf = (seen: string, name: string) => {
  const ref = refNamed(seen, name);
  if (!ref) throw new Error(`no ref for "${name}" in:\n${seen}`);
  return ref;
};

/**
 * Timing attacks on the moment between a probe and its event, against a victim at `at` (the
 * shop's pages `/flip{tag}.html` and `/slide{tag}.html`).
 */
function raceAttacks(tag: string, at: string): Record<string, string> {
  return {
    // A timing attacker: it measures the gap between a key's release and the next key (the
    // probe runs inside that gap), then moves focus into the mail frame just before the next
    // key is due, after the probe has answered "the field".
    [`/flip${tag}.html`]: `<!doctype html><title>Shop</title><body>
        <label>Search <input id="q"></label>
        <iframe id="mail" src="${at}/mail-up.html" style="width:300px;height:100px"></iframe>
        <script>
          const q = document.getElementById('q');
          const mail = document.getElementById('mail');
          q.focus();
          let lastUp = 0;
          const gaps = [];
          q.addEventListener('keydown', () => { if (lastUp) gaps.push(performance.now() - lastUp); });
          q.addEventListener('keyup', () => {
            lastUp = performance.now();
            if (gaps.length < 2) return;
            const g = [...gaps].sort((a, b) => a - b)[0];
            setTimeout(() => mail.focus(), Math.max(0, g * (0.5 + Math.random() * 0.5) - 0.3));
          });
        </script>`,
    // The same timing attack on a click: the page learns (across calls, in localStorage) how
    // long after the pointer's move the press comes, and shows the victim's transparent frame
    // over the button just before it is due, after the probe has answered "the button".
    [`/slide${tag}.html`]: `<!doctype html><title>Shop</title><body style="margin:0">
        <button id="buy" style="position:absolute;left:40px;top:40px;width:200px;height:60px"
          onclick="fetch('/bought', { method: 'POST' })">Buy now</button>
        <iframe id="v" src="${at}/delete.html" style="position:absolute;left:0;top:0;width:400px;height:200px;border:0;opacity:0;visibility:hidden"></iframe>
        <script>
          const v = document.getElementById('v');
          let moved = 0;
          addEventListener('mousemove', () => {
            moved = performance.now();
            const gap = Number(localStorage.gap || 0);
            if (gap) setTimeout(() => { v.style.visibility = 'visible'; }, gap * (0.4 + Math.random() * 0.6));
          }, true);
          addEventListener('mousedown', () => {
            if (moved) localStorage.gap = String(performance.now() - moved);
          }, true);
        </script>`,
  };
}

describe('receiver checks at dispatch', () => {
  let s: Session;
  let shop: PageSite;
  let victim: PageSite;
  let neighbour: PageSite;

  beforeAll(async () => {
    const victimPages = () => ({
      // A one-button "delete my account" form, filling its frame.
      '/delete.html':
        '<!doctype html><title>Victim</title><body style="margin:0"><form method="post" action="/delete-account"><button style="width:100vw;height:100vh">Delete my account</button></form>',
      // A webmail frame whose keyboard shortcut deletes a conversation.
      '/mail.html':
        '<!doctype html><title>Mail</title><body><p>Inbox</p><script>addEventListener("keydown", (e) => { fetch("/shortcut?key=" + encodeURIComponent(e.key), { method: "POST" }); });</script>',
      // A drop zone filling its frame: whatever the pointer does in it is reported by POST.
      '/dropzone.html':
        '<!doctype html><title>Zone</title><body style="margin:0"><div id="z" style="width:100vw;height:100vh">zone</div><script>for (const t of ["mouseup", "pointerup", "drop"]) addEventListener(t, (e) => { e.preventDefault(); fetch("/zone-" + t, { method: "POST" }); }); addEventListener("dragover", (e) => e.preventDefault());</script>',
      // A widget whose button lives in an about:blank frame it writes itself: that frame's
      // origin is the widget's (its creator's), not the page around the widget.
      '/nest.html':
        '<!doctype html><title>Widget</title><body><p>Widget</p><iframe id="b" style="width:300px;height:80px"></iframe><script>const d = document.getElementById("b").contentDocument; d.body.innerHTML = \'<button style="width:250px;height:50px">Delete widget data</button>\'; d.querySelector("button").onclick = () => fetch("/blank-write", { method: "POST" });</script>',
      // The same, acting on key release.
      '/mail-up.html':
        '<!doctype html><title>Mail</title><body><p>Inbox</p><script>for (const t of ["keydown", "keyup"]) addEventListener(t, (e) => { fetch("/shortcut-" + t, { method: "POST", body: e.key }); });</script>',
    });
    victim = await pageSite('victim.localhost', victimPages);
    // The same victim on the shop's own site (127.0.0.1, another port): another origin, but the
    // same renderer process, where a frame's hit test and focus follow the page's DOM at once.
    neighbour = await pageSite('127.0.0.1', victimPages);
    shop = await pageSite('127.0.0.1', () => ({
      '/overlay.html': `<!doctype html><title>Shop</title><body style="margin:0">
        <button id="buy" style="position:absolute;left:40px;top:40px;width:200px;height:60px"
          onclick="fetch('/bought', { method: 'POST' })">Buy now</button>
        <iframe src="${victim.origin}/delete.html" style="position:absolute;left:0;top:0;width:400px;height:200px;border:0;opacity:0"></iframe>`,
      // The same page with the frame out of the way: the click is the shop's own.
      '/beside.html': `<!doctype html><title>Shop</title><body style="margin:0">
        <button id="buy" style="position:absolute;left:40px;top:40px;width:200px;height:60px"
          onclick="fetch('/bought', { method: 'POST' })">Buy now</button>
        <iframe src="${victim.origin}/delete.html" style="position:absolute;left:0;top:300px;width:400px;height:200px;border:0;opacity:0"></iframe>`,
      // A transparent frame of the victim lies over the drop target of a drag.
      '/drag.html': `<!doctype html><title>Shop</title><body style="margin:0">
        <button id="item" draggable="true" style="position:absolute;left:40px;top:40px;width:120px;height:40px">Card</button>
        <div role="region" aria-label="Drop here" style="position:absolute;left:300px;top:40px;width:200px;height:60px;background:#eee">Drop here</div>
        <iframe src="${victim.origin}/dropzone.html" style="position:absolute;left:290px;top:30px;width:220px;height:80px;border:0;opacity:0;z-index:10"></iframe>`,
      // The victim's widget, with its about:blank frame, embedded in the shop.
      '/nested.html': `<!doctype html><title>Shop</title><body><h1>Shop</h1>
        <iframe src="${victim.origin}/nest.html" style="width:420px;height:200px"></iframe>`,
      // Focus moves into the mail frame from the page's own keydown, after the third key.
      '/thief.html': `<!doctype html><title>Shop</title><body>
        <label>Search <input id="q"></label>
        <iframe id="mail" src="${victim.origin}/mail.html" style="width:300px;height:100px"></iframe>
        <script>
          const q = document.getElementById('q');
          q.focus();
          let keys = 0;
          q.addEventListener('keydown', () => { if (++keys === 3) setTimeout(() => document.getElementById('mail').focus(), 0); });
        </script>`,
      ...raceAttacks('', victim.origin),
      ...raceAttacks('-near', neighbour.origin),
      // Focus moves inside the third key's own keydown: its keyup would reach the frame.
      '/thief-sync.html': `<!doctype html><title>Shop</title><body>
        <label>Search <input id="q"></label>
        <iframe id="mail" src="${victim.origin}/mail-up.html" style="width:300px;height:100px"></iframe>
        <script>
          const q = document.getElementById('q');
          q.focus();
          let keys = 0;
          q.addEventListener('keydown', () => { if (++keys === 3) document.getElementById('mail').focus(); });
        </script>`,
    }));
    s = await startSession();
    await s.client.sendOk({ type: 'settings.update', patch: { approvalMode: 'act' } });
    await s.client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
  });

  afterAll(async () => {
    await s?.close();
    await shop?.close();
    await victim?.close();
    await neighbour?.close();
  });

  async function turn(
    path: string,
    steps: Array<(seen: string) => ScriptedToolCall>,
    decide: (a: ApprovalRequest) => Decision = () => 'deny',
  ) {
    const { page } = await openTab(s, `${shop.origin}${path}`);
    // The frame is loaded (its document is what the attack needs).
    await page.waitForFunction(() => document.querySelector('iframe') !== null);
    await page.waitForTimeout(300);
    plan(s, steps);
    const result = await runTurn(s, 'Do it.', decide);
    return { ...result, page };
  }

  const victimOrigin = () => victim.origin;

  it('a trusted click on a button under a transparent cross-origin frame is held, naming the frame', async () => {
    const t = await turn('/overlay.html', [
      snapshot,
      (seen) => ({ name: 'browser_mouse', args: { action: 'click', ref: refOf(seen, 'Buy now') } }),
    ]);
    await t.page.waitForTimeout(500);

    // Ground truth: the victim received nothing but the frame's own GET.
    expect(victim.writes()).toEqual([]);
    expect(t.approvals.map((a) => [a.target.origin, a.target.topOrigin])).toEqual([
      [victimOrigin(), shop.origin],
    ]);
    expect(t.approvals[0].reason).toMatch(/click would land in a frame from/);
    const result = resultText(toolResults(t.items)[1]);
    expect(result).toMatch(/denied|declined|not/i);
    await t.page.close();
  });

  it('approving the held frame delivers the click there (the approval names that receiver)', async () => {
    const t = await turn(
      '/overlay.html',
      [
        snapshot,
        (seen) => ({
          name: 'browser_mouse',
          args: { action: 'click', ref: refOf(seen, 'Buy now') },
        }),
      ],
      (a) => (a.target.origin === victimOrigin() ? 'allow_once' : 'deny'),
    );
    await expect
      .poll(() => victim.writes().map((h) => h.url), { timeout: 5000 })
      .toEqual(['/delete-account']);
    expect(t.approvals).toHaveLength(1);
    victim.hits.length = 0;
    await t.page.close();
  });

  it('a click that lands on the judged page itself is delivered without asking', async () => {
    const before = shop.writes().length;
    const t = await turn('/beside.html', [
      snapshot,
      (seen) => ({ name: 'browser_mouse', args: { action: 'click', ref: refOf(seen, 'Buy now') } }),
    ]);
    await expect.poll(() => shop.writes().length, { timeout: 5000 }).toBe(before + 1);
    expect(t.approvals).toEqual([]);
    expect(victim.writes()).toEqual([]);
    await t.page.close();
  });

  it('keys stop when the page moves focus into another origin, and say how many went in', async () => {
    const t = await turn('/thief.html', [
      () => ({ name: 'browser_keyboard', args: { text: 'hello world' } }),
    ]);
    await t.page.waitForTimeout(500);
    expect(victim.writes()).toEqual([]);
    expect(t.approvals.map((a) => a.target.origin)).toEqual([victimOrigin()]);
    expect(t.approvals[0].reason).toMatch(
      /(the next key|the release of that key) would land in a frame from/,
    );
    // The model is told what reached the page before the hold, and that is what the shop's field
    // holds: the keys before focus moved (the page moves it from a timer after the third key, so
    // under load a fourth may still go in), and nothing after.
    const told = /(\d+) of 11 keys went in/.exec(resultText(toolResults(t.items)[0]));
    expect(told).not.toBeNull();
    const went = Number(told?.[1]);
    expect(went).toBeGreaterThanOrEqual(3);
    expect(await t.page.inputValue('#q')).toBe('hello world'.slice(0, went));
    await t.page.close();
  });

  // A key sent while the page's focus move settles reaches the shop's document with the frame
  // element focused, and goes nowhere: the guard swallows it uncounted, so it is sent again after
  // approval (before the guard, 1 in 3 fresh-clone CI runs lost it).
  it('after approval of the frame the keys continue there, none repeated and none lost', async () => {
    victim.hits.length = 0;
    const t = await turn(
      '/thief.html',
      [() => ({ name: 'browser_keyboard', args: { text: 'hello world' } })],
      (a) => (a.target.origin === victimOrigin() ? 'allow_once' : 'deny'),
    );
    const framed = () =>
      victim.writes().map((h) => new URL(h.url, 'http://x').searchParams.get('key') ?? '');
    // Ground truth on both sides: the shop's field and what the mail server received. Every key
    // of the text arrived exactly once, on one side or the other; the shop's field got the first
    // three (before focus moved) and the mail frame only keys after them. Under load, Chromium
    // may hand a key judged for the frame to the page's own field while the page's focus move is
    // still settling: that page is allowed, and the key is not repeated or lost.
    await expect
      .poll(async () => (await t.page.inputValue('#q')).length + framed().length, {
        timeout: 5000,
      })
      .toBe('hello world'.length);
    const typed = await t.page.inputValue('#q');
    expect(typed.startsWith('hel')).toBe(true);
    expect(typed).toBe('hello world'.slice(0, typed.length));
    // The frame's fetches may reach the server in any order.
    expect(framed().sort()).toEqual([...'hello world'.slice(typed.length)].sort());
    expect(framed().length).toBeGreaterThan(0);
    expect(t.approvals).toHaveLength(1);
    await t.page.close();
  });

  // The race the probes alone cannot close: the page moves focus, or a frame, between the probe
  // and the event. The documents are armed (content-scripts/input-guard.ts), so whatever the
  // timing, the victim's own server receives nothing, and the key count the model is told is
  // what the shop's field holds. Measured before the guard (the same tests against the previous
  // build): cross-site, the key in flight went nowhere and was counted anyway (the field held
  // one key fewer than the model was told, in every run); same-site, see the closing note.
  const victims = [
    { name: 'another site', tag: '', site: () => victim },
    { name: 'the same site', tag: '-near', site: () => neighbour },
  ];
  for (const { name, tag, site } of victims) {
    it(`keys: a page timing a focus move between the probe and the key gets none into a frame of ${name}, and the count is what the field holds`, async () => {
      site().hits.length = 0;
      let tries = 0;
      for (let turnNo = 0; turnNo < 4; turnNo++) {
        const t = await turn(`/flip${tag}.html`, [
          () => ({ name: 'browser_keyboard', args: { text: 'hello world' } }),
        ]);
        await t.page.waitForTimeout(300);
        const result = resultText(toolResults(t.items)[0]);
        const typed = await t.page.inputValue('#q');
        expect(site().writes()).toEqual([]);
        const told =
          /(\d+) of 11 keys (?:went in|reached the page)/.exec(result)?.[1] ??
          (t.approvals.length === 0 ? '11' : '0');
        expect(typed.length, `${result}\nfield: ${JSON.stringify(typed)}`).toBe(Number(told));
        // What is in the field is the text's keys in order, none invented or repeated.
        expect(isSubsequence(typed, 'hello world'), typed).toBe(true);
        tries += Number(told) + t.approvals.length;
        await t.page.close();
      }
      expect(tries).toBeGreaterThan(4);
    });

    it(`clicks: a page timing a frame of ${name} under the pointer between the probe and the press gets nothing into it`, async () => {
      site().hits.length = 0;
      for (let turnNo = 0; turnNo < 4; turnNo++) {
        const t = await turn(`/slide${tag}.html`, [
          snapshot,
          (seen) => ({
            name: 'browser_mouse',
            args: { action: 'click', ref: refOf(seen, 'Buy now') },
          }),
        ]);
        await t.page.waitForTimeout(300);
        expect(site().writes()).toEqual([]);
        await t.page.close();
      }
    });
  }

  it('a key whose own keydown moves focus away is not released into the other frame', async () => {
    victim.hits.length = 0;
    const t = await turn('/thief-sync.html', [
      () => ({ name: 'browser_keyboard', args: { text: 'hello' } }),
    ]);
    await t.page.waitForTimeout(500);
    expect(victim.writes()).toEqual([]);
    expect(t.approvals.map((a) => a.target.origin)).toEqual([victimOrigin()]);
    expect(t.approvals[0].reason).toMatch(/release of that key would land in a frame from/);
    await t.page.close();
  });
  it('the drop point of a drag is checked: a transparent frame over the drop target is held, naming it', async () => {
    victim.hits.length = 0;
    const t = await turn('/drag.html', [
      snapshot,
      (seen) => ({
        name: 'browser_mouse',
        // The point of the "Drop here" box, where the transparent frame lies.
        args: { action: 'drag', ref: refOf(seen, 'Card'), toX: 400, toY: 70 },
      }),
    ]);
    await t.page.waitForTimeout(500);
    expect(victim.writes()).toEqual([]);
    expect(t.approvals.map((a) => a.target.origin)).toEqual([victimOrigin()]);
    await t.page.close();
  });

  it("an about:blank frame inside another origin's frame is judged on its creator, not the top page", async () => {
    victim.hits.length = 0;
    const t = await turn('/nested.html', [
      snapshot,
      // The widget's frame is another origin: the model looks inside it, as the top snapshot says.
      (seen) => ({
        name: 'browser_snapshot',
        args: { frameId: Number(/iframe \[frameId=(\d+)\]/.exec(seen)?.[1]) },
      }),
      (seen) => ({ name: 'browser_click', args: { ref: refOf(seen, 'Delete widget data') } }),
    ]);
    await t.page.waitForTimeout(500);
    expect(victim.writes()).toEqual([]);
    // Asked about the widget's origin (the shop's allow rule does not cover it); denied.
    expect(t.approvals.map((a) => a.target.origin)).toEqual([victimOrigin()]);
    await t.page.close();
  });
  it("a trusted click on a button in an about:blank frame inside another origin's frame is held, naming that origin", async () => {
    victim.hits.length = 0;
    const { page } = await openTab(s, `${shop.origin}/nested.html`);
    // Where the button is, as the page shows it (the test reads it; the model is given the point).
    const blankFrame = () =>
      page.frames().find((f) => f.url() === 'about:blank' && f.parentFrame() !== null);
    await expect.poll(() => blankFrame() !== undefined, { timeout: 5000 }).toBe(true);
    const blank = blankFrame()!;
    const box = (await blank.locator('button').boundingBox())!;
    const at = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    plan(s, [() => ({ name: 'browser_mouse', args: { action: 'click', ...at } })]);
    const t = await runTurn(s, 'Do it.', (a) =>
      a.target.origin === shop.origin ? 'allow_once' : 'deny',
    );
    await page.waitForTimeout(500);
    expect(victim.writes()).toEqual([]);
    expect(t.approvals.map((a) => a.target.origin)).toContain(victimOrigin());
    await page.close();
  });
});
