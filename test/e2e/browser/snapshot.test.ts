/**
 * The snapshot in Chromium on the fixture pages, through the test hook (the same page agent the
 * extension injects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, refOf, snapshot, startHarness, type Harness } from './support/page-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('snapshot of form controls', () => {
  it('gives every visible control a line with role, name, ref and state', async () => {
    const page = await h.open('forms.html');
    const { text } = await snapshot(page);
    const expectLine = (re: RegExp) => expect(text).toMatch(re);
    expectLine(/- form "Settings":/);
    expectLine(/- textbox "Full name" \[ref=e\d+\] \[required\]/);
    expectLine(/- textbox "Email" \[ref=e\d+\] \[type=email\]/);
    expectLine(/- textbox "Password" \[ref=e\d+\] \[type=password\]: •+/);
    expectLine(/- spinbutton "Age" \[ref=e\d+\]/);
    expectLine(/- searchbox "Search" \[ref=e\d+\]/);
    expectLine(/- textbox "Nickname" \[ref=e\d+\] \[readonly\]: old nick/);
    expectLine(/- textbox "Locked" \[ref=e\d+\] \[disabled\]: cannot change/);
    expectLine(/- combobox "Fruit" \[ref=e\d+\]/);
    expectLine(/- textbox "Birthday" \[ref=e\d+\] \[type=date\]/);
    expectLine(/- button "Colour" \[ref=e\d+\] \[type=color\]: #336699/);
    expectLine(/- slider "Volume" \[ref=e\d+\]: 30/);
    expectLine(/- checkbox "Send me the newsletter" \[ref=e\d+\]$/m);
    expectLine(/- checkbox "I accept the terms" \[ref=e\d+\] \[checked\]/);
    expectLine(/- radio "Free" \[ref=e\d+\] \[checked\]/);
    expectLine(/- radio "Pro" \[ref=e\d+\]$/m);
    expectLine(
      /- combobox "Country" \[ref=e\d+\]: Choose… \[options: Choose…, France, Germany, Japan\]/,
    );
    expectLine(/- listbox "Languages" \[ref=e\d+\]/);
    // CSS-only toggle: the hidden checkbox is represented by its label, with the checkbox's role.
    expectLine(/- checkbox "Dark mode" \[ref=e\d+\]/);
    expectLine(/- checkbox "Remember this device" \[ref=e\d+\]/);
    expectLine(/- switch "Notifications" \[ref=e\d+\] \[checked\]/);
    expectLine(/- textbox "Bio" \[ref=e\d+\]: Hello/);
    expectLine(/- textbox "Rich editor" \[ref=e\d+\]: Start writing/);
    expectLine(/- textbox "Inside disabled fieldset" \[ref=e\d+\] \[disabled\]/);
    expectLine(/- button "Advanced options" \[ref=e\d+\] \[collapsed\]/);
    expectLine(/- button "Save settings" \[ref=e\d+\] \[type=submit\]/);
    expectLine(/- button "More" \[ref=e\d+\] \[collapsed\]/);
    expectLine(/- clickable "Clickable div" \[ref=e\d+\]/);
    expectLine(/- clickable "Open menu" \[ref=e\d+\]/);
    expectLine(/^\s*# Account settings$/m);
    // Hidden inputs, hidden values and label text already used as names do not show.
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('hunter22');
    expect(text).not.toMatch(/^\s*Full name$/m);
    await page.close();
  });

  it('keeps refs stable across snapshots and never reuses them', async () => {
    const page = await h.open('dynamic.html');
    const a = await snapshot(page);
    const add = refOf(a.text, /button "Add item"/);
    const b = await snapshot(page);
    expect(refOf(b.text, /button "Add item"/)).toBe(add);
    expect(b.docId).toBe(a.docId);
    await page.click('#self-destruct');
    const c = await snapshot(page);
    expect(refOf(c.text, /button "Add item"/)).toBe(add);
    expect(c.text).not.toContain('Remove me');
    await page.close();
  });
});

describe('hidden content', () => {
  it('drops every hidden prompt-injection trick and keeps the visible text', async () => {
    const page = await h.open('injection.html');
    const { text } = await snapshot(page);
    expect(text).toContain("# Grandma's pancakes");
    expect(text).toContain('Mix flour, eggs and milk.');
    expect(text).toMatch(/- link "Print recipe" \[ref=e\d+\]/);
    expect(text).not.toContain('INJECTION');
    await page.close();
  });
});

describe('frames and shadow roots', () => {
  it('includes same-origin iframes and names cross-origin ones', async () => {
    const page = await h.open('iframes.html');
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 3);
    await page.frames()[1]?.waitForLoadState('load');
    const { text } = await snapshot(page);
    expect(text).toMatch(/- iframe "Same-origin form":\n\s+## Child frame \(same\)/);
    expect(text).toMatch(/\s+- textbox "Coupon code" \[ref=e\d+\]/);
    // The frameId placeholder is filled in by the service worker (frame-ids.ts).
    expect(text).toMatch(
      new RegExp(
        `- iframe "Partner form" \\[frameId=#[a-z0-9]+-0\\] \\(cross-origin ${h.other.replace(/[.:/]/g, '\\$&')}\\)`,
      ),
    );
    expect(text).not.toContain('Child frame (cross)');
    expect(text).not.toContain('Invisible');
    await page.close();
  });

  it('walks open shadow roots with their slotted content', async () => {
    const page = await h.open('shadow.html');
    const { text } = await snapshot(page);
    expect(text).toMatch(/- region "Profile":\n\s+## Ada Lovelace/);
    expect(text).toMatch(/- textbox "Message" \[ref=e\d+\]/);
    expect(text).toMatch(/- button "Follow" \[ref=e\d+\]/);
    // Closed roots are reachable only through chrome.dom in the extension.
    expect(text).not.toContain('Closed shadow button');
    await page.close();
  });
});

describe('modes, budget and incremental snapshots', () => {
  it('viewport mode shows only what is on screen', async () => {
    const page = await h.open('lazy.html');
    const full = await snapshot(page, { mode: 'full' });
    expect(full.text).toContain('# Lazy page');
    await page.evaluate(() => window.scrollTo(0, 5000));
    await page.waitForFunction(() => document.querySelectorAll('#feed li').length >= 5);
    const view = await snapshot(page, { mode: 'viewport' });
    expect(view.text).not.toContain('# Lazy page');
    expect(view.text).toMatch(/- link "Story 1\.1" \[ref=e\d+\]/);
    await page.close();
  });

  it('ends a snapshot over budget with a truncation note', async () => {
    const page = await h.open('large.html');
    const snap = await snapshot(page, { maxTokens: 1000 });
    expect(snap.truncated).toBe(true);
    expect(snap.text).toMatch(/\[truncated: .*browser_find.*scroll/);
    expect(snap.estTokens).toBeLessThanOrEqual(1000);
    await page.close();
  });

  it('snapshots a very large DOM completely', async () => {
    const page = await h.open('large.html');
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    expect(elements).toBeGreaterThan(20_000);
    const snap = await snapshot(page, { maxTokens: 200_000 });
    expect(snap.text).toMatch(/- button "Order 2999" \[ref=e\d+\]/);
    expect(snap.text).toMatch(/SKU-10 \| Widget model 10 \| 70/);
    expect(snap.refs).toBe(3300);
    // Speed is measured by bench:snapshot as a ratio in one run, never asserted here.
    await page.close();
  });

  it('returns only the changes in incremental mode', async () => {
    const page = await h.open('dynamic.html');
    await snapshot(page);
    const same = await snapshot(page, { incremental: true });
    expect(same.kind).toBe('unchanged');
    await page.click('#add');
    const diff = await snapshot(page, { incremental: true });
    expect(diff.kind).toBe('diff');
    expect(diff.text).toMatch(/^@@ after: - Bread\n\+ {3}- Item 1$/m);
    expect(diff.text).toContain('+   3 items');
    expect(diff.text).toMatch(/@@ removed:\n- {3}2 items/);
    expect(diff.text).not.toContain('Milk');
    await page.close();
  });
});

describe('find and readable text', () => {
  it('finds controls by name and text with refs', async () => {
    const page = await h.open('forms.html');
    const r = await call<{ matches: string[]; total: number }>(page, {
      op: 'find',
      query: 'country',
      kind: 'element',
      limit: 5,
      refPrefix: '',
    });
    expect(r.matches[0]).toMatch(/- combobox "Country" \[ref=e\d+\]/);
    const t = await call<{ matches: string[] }>(page, {
      op: 'find',
      query: 'newsletter',
      kind: 'text',
      limit: 5,
      refPrefix: '',
    });
    expect(t.matches.some((m) => /checkbox "Send me the newsletter"/.test(m))).toBe(true);
    await page.close();
  });

  it('counts the options of a long select and finds the select by the label of one', async () => {
    const page = await h.open('forms.html');
    await page.evaluate(() => {
      const label = document.createElement('label');
      label.textContent = 'Destination ';
      const select = document.createElement('select');
      for (let i = 1; i <= 40; i++) select.add(new Option(`Place ${i}`, String(i)));
      select.add(new Option('Zanzibar', 'z'));
      label.append(select);
      document.body.prepend(label);
    });
    const { text } = await snapshot(page);
    expect(text).toMatch(/- combobox "Destination" \[ref=e\d+\]: Place 1 \[41 options\]$/m);
    expect(text).not.toContain('Zanzibar');
    const r = await call<{ matches: string[] }>(page, {
      op: 'find',
      query: 'zanzibar',
      kind: 'element',
      limit: 5,
      refPrefix: '',
    });
    expect(r.matches[0]).toMatch(
      /- combobox "Destination" \[ref=e\d+\]: Place 1 \[41 options\] \(options matching: "Zanzibar"\)/,
    );
    await page.close();
  });

  it('extracts the main text without hidden injections', async () => {
    const page = await h.open('injection.html');
    const r = await call<{ text: string; title: string }>(page, {
      op: 'get_text',
      maxChars: 5000,
      offset: 0,
    });
    expect(r.title).toBe('Recipe blog');
    expect(r.text).toContain('Mix flour, eggs and milk.');
    expect(r.text).not.toMatch(/INJECTION-(display-none|visibility-hidden|aria-hidden|opacity)/);
    await page.close();
  });
});
