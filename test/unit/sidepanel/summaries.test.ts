import { describe, expect, it } from 'vitest';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import { substitute } from '../../../sidepanel/i18n';
import { approvalSummary, frameLine } from '../../../sidepanel/summaries/approval-summary';
import { displayUrl, parseElementLine } from '../../../sidepanel/summaries/facts';
import { foldReads } from '../../../sidepanel/summaries/read-fold';
import {
  SUMMARY_KINDS,
  toolSummary,
  type SummaryLine,
} from '../../../sidepanel/summaries/tool-summary';
import type { Row } from '../../../sidepanel/state/rows';

type Bundle = Record<string, { message: string }>;
const say = (bundle: Bundle, s: SummaryLine | null) =>
  s ? substitute(bundle[s.key].message, s.subs) : null;
const enLine = (s: SummaryLine | null) => say(en as Bundle, s);
const zhLine = (s: SummaryLine | null) => say(zh as Bundle, s);

/** What browser tools put in details after acting on an element (page-action.ts). */
const acted = (role: string, name: string, extra: Record<string, unknown> = {}) => ({
  tabId: 1,
  urlBefore: 'https://shop.example/p/1',
  urlAfter: 'https://shop.example/p/1',
  element: `- ${role} "${name}" [ref=e2]`,
  target: { role, name },
  ...extra,
});

describe('tool card summaries (result → line)', () => {
  it('names the target from details, in both languages', () => {
    const typed = toolSummary(
      { name: 'browser_type', params: { ref: 'e2', text: '2' } },
      { ok: true, details: acted('spinbutton', 'Quantity') },
    );
    expect(enLine(typed)).toBe('Typed “2” into Quantity');
    expect(zhLine(typed)).toBe('在 Quantity 中输入了“2”');
    const clicked = toolSummary(
      { name: 'browser_click', params: { ref: 'e5' } },
      { ok: true, details: acted('button', 'Add to cart') },
    );
    expect(enLine(clicked)).toBe('Clicked Add to cart');
    expect(zhLine(clicked)).toBe('点击了 Add to cart');
    const opened = toolSummary(
      { name: 'browser_navigate', params: { url: 'shop.example/cart' } },
      {
        ok: true,
        details: {
          tabId: 1,
          urlBefore: 'about:blank',
          urlAfter: 'https://www.shop.example/cart/',
          title: 'Cart',
        },
      },
    );
    expect(enLine(opened)).toBe('Opened shop.example/cart');
    expect(zhLine(opened)).toBe('打开了 shop.example/cart');
  });

  it('reads the snapshot line when details carry no target (older builds), then falls back to the ref', () => {
    const line = toolSummary(
      { name: 'browser_click', params: { ref: 'e7' } },
      { ok: true, details: { element: '- link "Sign \\"in\\"" [ref=e7] [focused]' } },
    );
    expect(enLine(line)).toBe('Clicked Sign "in"');
    const bare = toolSummary(
      { name: 'browser_click', params: { ref: 'e7' } },
      { ok: true, details: {} },
    );
    expect(enLine(bare)).toBe('Clicked e7');
    const unnamed = toolSummary(
      { name: 'browser_click', params: { ref: 'e8' } },
      { ok: true, details: { target: { role: 'button', name: '' } } },
    );
    expect(enLine(unnamed)).toBe('Clicked button e8');
  });

  it('never repeats what was typed into a password field, and keeps long text to one short line', () => {
    const pw = toolSummary(
      { name: 'browser_type', params: { ref: 'e3', text: 'hunter2', submit: true } },
      {
        ok: true,
        details: acted('textbox', 'Password', {
          element: '- textbox "Password" [ref=e3] [type=password]',
        }),
      },
    );
    expect(enLine(pw)).toBe('Typed “••••••” into Password, then pressed Enter');
    expect(enLine(pw)).not.toContain('hunter2');
    const long = toolSummary(
      { name: 'browser_type', params: { ref: 'e3', text: 'a\n'.repeat(200) } },
      { ok: true, details: acted('textbox', 'Notes') },
    );
    expect(enLine(long)!.length).toBeLessThan(80);
    expect(enLine(long)).not.toContain('\n');
  });

  it('gives no line for failed results or tools it does not know (their card keeps the label)', () => {
    expect(
      toolSummary({ name: 'browser_click', params: { ref: 'e1' } }, { ok: false, details: {} }),
    ).toBeNull();
    expect(toolSummary({ name: 'browser_click', params: { ref: 'e1' } }, undefined)).toBeNull();
    expect(toolSummary({ name: 'mcp__srv__echo', params: {} }, { ok: true })).toBeNull();
  });

  // Every browser tool, with the parameters and details it really produces: a line in each locale,
  // every substitution filled, no key missing from either bundle.
  const cases: Array<[string, unknown, unknown, string]> = [
    ['browser_click', { ref: 'e1', doubleClick: true }, acted('button', 'Go'), 'Double-clicked Go'],
    ['browser_click', { ref: 'e1', button: 'right' }, acted('button', 'Go'), 'Right-clicked Go'],
    [
      'browser_tab_open',
      { url: 'https://a.example/x' },
      { tabId: 2, urlAfter: 'https://a.example/x' },
      'Opened a.example/x in a new tab',
    ],
    [
      'browser_go_back',
      {},
      { urlBefore: 'https://a.example/2', urlAfter: 'https://a.example/1' },
      'Went back to a.example/1',
    ],
    [
      'browser_tab_close',
      { tabId: 4 },
      { tabId: 4, urlBefore: 'https://a.example/old' },
      'Closed the tab a.example/old',
    ],
    [
      'browser_tab_switch',
      { tabId: 4 },
      { tabId: 4, urlAfter: 'https://a.example/', title: 'Inbox' },
      'Switched to the tab Inbox',
    ],
    ['browser_tabs', {}, { info: { tabs: [{}, {}, {}] } }, 'Listed the open tabs (3)'],
    [
      'browser_snapshot',
      {},
      { urlAfter: 'https://a.example/', title: 'Shop' },
      'Read the page “Shop”',
    ],
    [
      'browser_get_text',
      {},
      { urlAfter: 'https://a.example/', info: { totalChars: 9 } },
      'Read the page’s text',
    ],
    ['browser_find', { query: 'price' }, { info: { total: 4 } }, 'Looked for “price” (4 found)'],
    [
      'browser_find',
      { query: 'price' },
      { info: { total: 0 } },
      'Looked for “price”: nothing found',
    ],
    ['browser_screenshot', {}, { urlAfter: 'https://a.example/' }, 'Took a screenshot'],
    [
      'browser_console',
      {},
      { info: { total: 7, debuggerAttached: false } },
      'Read the console (7 messages)',
    ],
    [
      'browser_console',
      { levels: ['error'] },
      { info: { total: 2, debuggerAttached: true } },
      'Read the console (2 messages). Chrome showed its debugging bar because Keel attached the debugger to read it',
    ],
    ['browser_network', {}, { info: { total: 12 } }, 'Read the network requests (12)'],
    [
      'browser_network',
      { status: 'errors' },
      { info: { total: 1, debuggerAttached: true } },
      'Read the network requests (1). Chrome showed its debugging bar because Keel attached the debugger to read them',
    ],
    [
      'browser_network',
      { bodyOf: '123.4' },
      { info: {} },
      'Read the response body of request 123.4',
    ],
    ['browser_scroll', { direction: 'down' }, { info: { y: 800 } }, 'Scrolled down'],
    ['browser_scroll', { text: 'Reviews' }, {}, 'Scrolled to “Reviews”'],
    ['browser_scroll', { ref: 'e9' }, acted('heading', 'Reviews'), 'Scrolled Reviews into view'],
    ['browser_hover', { ref: 'e1' }, acted('menuitem', 'Account'), 'Hovered over Account'],
    [
      'browser_select',
      { ref: 'e1', values: ['Large'] },
      acted('combobox', 'Size'),
      'Selected “Large” in Size',
    ],
    ['browser_press_key', { key: 'Escape' }, {}, 'Pressed Escape'],
    [
      'browser_press_key',
      { key: 'Enter', ref: 'e1' },
      acted('searchbox', 'Search'),
      'Pressed Enter in Search',
    ],
    ['browser_keyboard', { text: 'hello' }, {}, 'Typed “hello” with the keyboard'],
    ['browser_keyboard', { text: 'hi', keys: ['Enter'] }, {}, 'Typed “hi” and pressed Enter'],
    ['browser_keyboard', { keys: ['Control+a', 'Backspace'] }, {}, 'Pressed Control+a Backspace'],
    ['browser_mouse', { action: 'click', x: 10.4, y: 20 }, {}, 'Clicked (10, 20)'],
    [
      'browser_mouse',
      { action: 'drag', ref: 'e1', toRef: 'e2' },
      acted('listitem', 'Card'),
      'Dragged Card to e2',
    ],
    [
      'browser_mouse',
      { action: 'move', ref: 'e1' },
      acted('link', 'Menu'),
      'Moved the pointer to Menu',
    ],
    ['browser_dialog', { action: 'accept' }, { info: { type: 'confirm' } }, 'Accepted the dialog'],
    ['browser_dialog', { action: 'accept', promptText: 'Bob' }, {}, 'Answered “Bob” in the dialog'],
    ['browser_dialog', { action: 'dismiss' }, {}, 'Dismissed the dialog'],
    [
      'browser_upload_file',
      { ref: 'e1', paths: ['/home/u/cv.pdf'] },
      acted('button', 'Resume'),
      'Uploaded cv.pdf to Resume',
    ],
    ['browser_wait_for', { condition: 'text', text: 'Saved' }, {}, 'Waited for “Saved”'],
    ['browser_wait_for', { condition: 'navigation' }, {}, 'Waited for the page to load'],
    ['browser_wait_for', { condition: 'time', timeoutSeconds: 2 }, {}, 'Waited 2 s'],
  ];
  it.each(cases)('%s %j', (name, params, details, expected) => {
    const s = toolSummary({ name, params }, { ok: true, details });
    expect(enLine(s)).toBe(expected);
    const z = zhLine(s)!;
    expect(z).toBeTruthy();
    expect(z).not.toMatch(/\$\d/);
  });

  it('every kind has a done and an ask message in both locales, with the same substitutions', () => {
    for (const kind of SUMMARY_KINDS) {
      for (const prefix of ['sum', 'ask']) {
        const key = `${prefix}_${kind}`;
        const a = (en as Bundle)[key]?.message;
        const b = (zh as Bundle)[key]?.message;
        expect(a, key).toBeTruthy();
        expect(b, key).toBeTruthy();
        const subsOf = (m: string) => [...new Set(m.match(/\$\d/g) ?? [])].sort();
        // A done line may drop a substitution its ask line has (and vice versa), never across locales.
        expect(subsOf(b), key).toEqual(subsOf(a));
      }
    }
  });

  it('generated parameters never throw and never leave a placeholder (seeded)', () => {
    let seed = Number(process.env.SEED ?? 19);
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const values: unknown[] = [
      undefined,
      null,
      0,
      -1,
      3.5,
      '',
      'x',
      'e12',
      'https://a.example/p?q=1',
      ['a', 2],
      { name: 3 },
      true,
    ];
    const names = cases.map((c) => c[0]);
    for (let i = 0; i < 400; i++) {
      const params = Object.fromEntries(
        [
          'ref',
          'text',
          'url',
          'key',
          'keys',
          'values',
          'action',
          'direction',
          'condition',
          'query',
          'submit',
        ].map((k) => [k, pick(values)]),
      );
      const details = {
        target: pick([undefined, { role: pick(values), name: pick(values) }]),
        element: pick(values),
        urlAfter: pick(values),
        info: pick(values),
      };
      const s = toolSummary({ name: pick(names), params }, { ok: true, details });
      if (!s) continue;
      const text = enLine(s)!;
      expect(text, `seed ${process.env.SEED ?? 19}, case ${i}`).not.toMatch(
        /\$\d|undefined|\[object/,
      );
    }
  });
});

describe('approval card sentence', () => {
  const request = (name: string, params: unknown, target: Record<string, unknown> = {}) => ({
    tool: { name, label: name, level: 'L1' as const, effects: 'write' as const },
    params,
    target: { tabId: 1, url: 'https://todo.example/', origin: 'https://todo.example', ...target },
  });

  it('says what will happen, naming the element the approval event carries', () => {
    const s = approvalSummary(
      request(
        'browser_type',
        { ref: 'e2', text: 'buy milk', submit: true },
        { element: { role: 'textbox', name: 'New todo' } },
      ),
    );
    expect(enLine(s)).toBe('Type “buy milk” into New todo, then press Enter');
    expect(zhLine(s)).toBe('在 New todo 中输入“buy milk”，然后按回车');
    expect(s?.subs).toEqual(['buy milk', 'New todo']);
    expect(
      enLine(
        approvalSummary(
          request('browser_click', { ref: 'e4' }, { element: { role: 'button', name: 'Pay now' } }),
        ),
      ),
    ).toBe('Click Pay now');
    expect(
      enLine(
        approvalSummary(
          request('browser_navigate', { url: 'x.example/a' }, { url: 'https://x.example/a' }),
        ),
      ),
    ).toBe('Open x.example/a');
  });

  it('falls back to the ref when the event names no element, and to nothing for unknown tools', () => {
    expect(enLine(approvalSummary(request('browser_click', { ref: 'e4' })))).toBe('Click e4');
    expect(approvalSummary(request('mcp__fs__write', { path: '/x' }))).toBeNull();
  });

  it('shows a frame line only when the frame comes from another origin than the page', () => {
    expect(
      frameLine(
        request(
          'browser_click',
          {},
          { topOrigin: 'https://shop.example', origin: 'https://pay.example' },
        ),
      ),
    ).toEqual({
      page: 'https://shop.example',
      frame: 'https://pay.example',
    });
    expect(
      frameLine(
        request(
          'browser_click',
          {},
          { topOrigin: 'https://todo.example', origin: 'https://todo.example' },
        ),
      ),
    ).toBeNull();
    expect(frameLine(request('browser_click', {}))).toBeNull();
  });
});

describe('helpers and compact mode', () => {
  it('displayUrl and parseElementLine', () => {
    expect(displayUrl('https://www.a.example/')).toBe('a.example');
    expect(displayUrl('chrome://settings')).toBe('chrome://settings');
    expect(parseElementLine('- checkbox [ref=f1e3] [checked]')).toEqual({
      role: 'checkbox',
      name: '',
    });
    expect(parseElementLine('no line')).toBeNull();
  });

  const read = (id: string, ok = true): Row => ({
    item: {
      kind: 'tool_call',
      id,
      createdAt: 0,
      toolCallId: `tc-${id}`,
      name: 'browser_snapshot',
      label: 'Read page',
      params: {},
      state: 'result',
      effects: 'read',
    },
    parentId: null,
    result: {
      kind: 'tool_result',
      id: `r-${id}`,
      createdAt: 0,
      toolCallId: `tc-${id}`,
      ok,
      content: [],
    },
  });
  const write = (id: string): Row => ({
    ...read(id),
    item: {
      ...(read(id).item as Extract<Row['item'], { kind: 'tool_call' }>),
      name: 'browser_click',
      effects: 'write',
    },
  });
  const askUser = (id: string): Row => ({
    ...read(id),
    item: {
      ...(read(id).item as Extract<Row['item'], { kind: 'tool_call' }>),
      name: 'ask_user',
      effects: 'read',
    },
  });

  const silent = (id: string): Row => ({
    item: { kind: 'assistant_message', id, createdAt: 0, text: '', providerStopReason: 'tool_use' },
    parentId: null,
  });

  it('silent model turns between reads fold with them; trailing ones stay outside', () => {
    const out = foldReads([read('1'), silent('s1'), read('2'), silent('s2'), write('3')]);
    expect(
      out.map((d) => (d.kind === 'reads' ? `reads:${d.count}:${d.rows.length}` : d.row.item.id)),
    ).toEqual(['reads:2:3', 's2', '3']);
    expect(foldReads([silent('s0'), read('1')]).map((d) => d.kind)).toEqual(['row', 'row']);
  });

  it('folds runs of two or more successful reads; a failed read or a write breaks the run', () => {
    const out = foldReads([
      read('1'),
      read('2'),
      read('3'),
      write('4'),
      read('5'),
      read('6', false),
      read('7'),
      read('8'),
    ]);
    expect(out.map((d) => (d.kind === 'reads' ? `reads:${d.rows.length}` : d.row.item.id))).toEqual(
      ['reads:3', '4', '5', '6', 'reads:2'],
    );
    expect(enLine({ key: 'foldReads', subs: ['3'] } as SummaryLine)).toBe('Read the page 3 times');
    // Read-only tools that do not read the page (a question to the user) never fold.
    expect(foldReads([askUser('q1'), askUser('q2')]).map((d) => d.kind)).toEqual(['row', 'row']);
  });

  it('keeps every row exactly once, in order, whatever the mix (seeded)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 50; n++) {
      const rows = Array.from({ length: Math.floor(rand() * 12) }, (_, i) => {
        const r = rand();
        return r < 0.5
          ? read(`${n}-${i}`, rand() < 0.9)
          : r < 0.75
            ? silent(`${n}-${i}`)
            : write(`${n}-${i}`);
      });
      const flat = foldReads(rows).flatMap((d) => (d.kind === 'reads' ? d.rows : [d.row]));
      expect(flat, `seed 7 round ${n}`).toEqual(rows);
    }
  });
});
