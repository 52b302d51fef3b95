import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedToolCall } from '../harness';
import { createBrowserTools } from '../../../src/tools/browser';
import { FakeHost } from '../../unit/browser/fake-host';
import { pageSite, type PageSite } from './receiver-sites';
import {
  currentTurn,
  messagesOf,
  openTab,
  refNamed,
  runTurn,
  startSession,
  textOf,
  type Session,
} from './support';

/**
 * Reads are what the page cannot observe (src/gatekeeper/verdict.ts): a tool declared `read`
 * runs with no approval on any site, so it must dispatch nothing the page's scripts can see.
 * Every registered browser tool declared `read` runs here, through the engine, against a probe
 * page that records every event it receives and every DOM change; the record must stay empty.
 * Hover (the finding: a keypad whose mouseenter beacons each digit) is now a write: it asks, and
 * the page sees nothing unless the user allows it.
 */

/** How the probe calls each read tool. A new read tool fails the test until it is listed. */
const READ_CALLS: Record<string, (seen: string) => ScriptedToolCall['args']> = {
  browser_tabs: () => ({}),
  browser_snapshot: () => ({}),
  browser_get_text: () => ({}),
  browser_find: () => ({ query: 'Target' }),
  browser_screenshot: () => ({}),
  browser_wait_for: () => ({ condition: 'text', text: 'Target', timeoutSeconds: 2 }),
  // Attach the debugger (Runtime, Log, Network enabled) and read the isolated-world timings.
  browser_console: () => ({}),
  browser_network: () => ({ includeHeaders: true }),
};

const PROBE = `<!doctype html><title>Probe</title><body style="height:3000px">
<button id="target">Target</button> <input id="field" aria-label="Field">
<div id="box" style="height:80px;overflow:auto"><div style="height:400px">Scrollable</div></div>
<script>
  window.__events = [];
  const types = ['mouseover','mouseenter','mouseout','mouseleave','mousemove','mousedown','mouseup',
    'click','dblclick','auxclick','contextmenu','pointerover','pointerenter','pointermove',
    'pointerdown','pointerup','pointerout','pointerleave','gotpointercapture','focus','blur',
    'focusin','focusout','keydown','keyup','keypress','beforeinput','input','change','select',
    'selectionchange','scroll','scrollend','wheel','dragstart','drag','dragenter','dragover',
    'drop','dragend','touchstart','submit','reset','toggle','copy','cut','paste'];
  for (const t of types) {
    addEventListener(t, (e) => __events.push(t + ':' + (e.target && (e.target.id || e.target.nodeName) || 'window')), true);
    document.addEventListener(t, (e) => { if (e.target === document) __events.push(t + ':document'); }, true);
  }
  new MutationObserver((ms) => { for (const m of ms) __events.push('mutation:' + m.type + ':' + (m.attributeName || '')); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // Bait for the console read: a debugger that previews logged objects by calling their getters
  // (the classic way a page detects DevTools) would leave a record here.
  console.log('probe', { get bait() { __events.push('getter:bait'); return 1; } });
  const err = new Error('probe');
  Object.defineProperty(err, 'stack', { get() { __events.push('getter:stack'); return 'probe'; } });
  console.error(err);
  fetch(location.href);
</script>`;

describe('reads are what the page cannot observe', () => {
  let s: Session;
  let site: PageSite;
  let page: Page;

  const registered = createBrowserTools(new FakeHost()).tools;

  beforeAll(async () => {
    site = await pageSite('probe.localhost', () => ({ '/probe.html': PROBE }));
    s = await startSession();
    ({ page } = await openTab(s, `${site.origin}/probe.html`));
  });

  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  function plan(steps: Array<(seen: string) => ScriptedToolCall>) {
    s.gullible.reply = (r) => {
      const turn = currentTurn(r);
      const seen = turn
        .filter((m) => m.role === 'tool')
        .map(textOf)
        .join('\n');
      // Each turn is a new thread: every tool call in it is this plan's (a screenshot's image
      // comes back as a user message, so the turn's own slice would restart the count).
      const made = messagesOf(r).flatMap((m) => m.tool_calls ?? []).length;
      const step = steps[made];
      return step ? { text: 'Working.', toolCalls: [step(seen)] } : { text: 'Done.' };
    };
  }

  const events = () => page.evaluate(() => (window as unknown as { __events: string[] }).__events);
  const clear = () =>
    page.evaluate(() => {
      (window as unknown as { __events: string[] }).__events = [];
    });

  it('every registered tool the engine offers is one this test knows the effects of', async () => {
    plan([]);
    const turn = await runTurn(s, 'Hello.');
    const tools = (turn.requests[0].body.tools ?? []) as {
      function: { name: string; description: string };
    }[];
    // Rarely needed tools are offered on demand: load_tools' list names them (docs/tools.md).
    const loadable = [
      ...(tools.find((t) => t.function.name === 'load_tools')?.function.description ?? '').matchAll(
        /^- (browser_\w+):/gm,
      ),
    ].map((m) => m[1]);
    const offered = tools.map((t) => t.function.name).filter((n) => n.startsWith('browser_'));
    expect(loadable.length).toBeGreaterThan(0);
    expect([...offered, ...loadable].sort()).toEqual(registered.map((t) => t.name).sort());
  });

  for (const tool of registered) {
    if (tool.effects !== 'read') continue;
    it(`${tool.name} (declared read) causes no event the page can observe`, async () => {
      const call = READ_CALLS[tool.name];
      expect(call, `add ${tool.name} to READ_CALLS`).toBeDefined();
      await page.bringToFront();
      await page.waitForTimeout(200);
      await clear();
      plan([(seen) => ({ name: tool.name, args: call(seen) })]);
      const turn = await runTurn(s, 'Read the page.');
      expect(turn.approvals).toEqual([]);
      // A read that failed would prove nothing: it must have done its work.
      const results = turn.items.filter((i) => i.kind === 'tool_result');
      expect(results.map((r) => (r.kind === 'tool_result' ? r.ok : null))).toEqual([true]);
      await page.waitForTimeout(300);
      expect(await events()).toEqual([]);
    });
  }

  it('hover is judged as a write: it asks on a site without a rule, and a denial leaves the page unaware', async () => {
    await page.bringToFront();
    plan([
      () => ({ name: 'browser_snapshot', args: {} }),
      (seen) => ({ name: 'browser_hover', args: { ref: refNamed(seen, 'Target') ?? 'e1' } }),
    ]);
    await page.waitForTimeout(200);
    await clear();
    const denied = await runTurn(s, 'Hover the target.');
    expect(denied.approvals.map((a) => [a.tool.name, a.target.origin])).toEqual([
      ['browser_hover', site.origin],
    ]);
    await page.waitForTimeout(300);
    expect(await events()).toEqual([]);
    // The probe does see a hover the user allows (it is a real observer, not a blind one).
    const allowed = await runTurn(s, 'Hover the target.', () => 'allow_once');
    expect(allowed.approvals).toHaveLength(1);
    expect(await events()).toContain('mouseover:target');
  });
});
