/**
 * One action, however it is spelled, gets one verdict and one origin on the approval card
 * (issue 13): every spelling of Enter and Space, combos, ref vs focus, and the frame route. The
 * key the Gatekeeper judges is the key both executors press (key-names.ts). Generated with
 * fast-check; a failure prints its seed and the counterexample.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keySpec } from '../../../content-scripts/actions/events';
import { decideVerdict, permissionKey, type Verdict } from '../../../src/gatekeeper/verdict';
import { createBrowserTools } from '../../../src/tools/browser';
import { keyDef } from '../../../src/tools/browser/input/cdp-input';
import { parseKeyCombo } from '../../../src/tools/browser/input/key-combo';
import { describeTool } from '../../../src/tools/registry';
import type { AgentTool, ToolCallContext, ToolTarget } from '../../../src/tools/types';
import { FakeHost } from '../browser/fake-host';
import { openGateForTests } from '../../../src/gatekeeper/receiver';

const ctx: ToolCallContext = {
  threadId: 't',
  runId: 'r',
  tabId: 1,
  model: { vision: true },
  gate: openGateForTests(),
};
const SHOP = 'https://shop.example';
const EVIL = 'https://evil.example';
const FORM = 'https://pay.widget.example';

/** Random letter case of a word: "return" → "rEtUrN". */
const anyCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((ups) => [...word].map((c, i) => (ups[i] ? c.toUpperCase() : c)).join(''));
const enterSpelling = fc.oneof(
  anyCase('enter'),
  anyCase('return'),
  fc.constantFrom('\r', '\n', '\r\n'),
);
const spaceSpelling = fc.oneof(anyCase('space'), anyCase('spacebar'), fc.constant(' '));
const modifiers = fc.subarray(['Shift', 'Control', 'Alt', 'Meta', 'ctrl', 'cmd']);
const withMods = (key: fc.Arbitrary<string>) =>
  fc
    .tuple(modifiers, key)
    .map(([mods, k]) => (mods.length && k.trim() !== '' ? [...mods, k].join('+') : k));

const button = (name: string, extra: Record<string, unknown>) => ({
  ref: 'e5',
  tag: 'button',
  role: 'button',
  name,
  line: `- button "${name}"`,
  box: { x: 0, y: 0, width: 9, height: 9 },
  ...extra,
});
const PAY = button('Pay now', { submitsForm: 'click', submitsPaymentForm: true });
const LINK = { ...button('Offer', {}), tag: 'a', role: 'link', href: `${EVIL}/claim` };

/** A shop page (allowed) with a Pay button; the focus sits on `focused`; frame 3 is FORM's. */
function setup(focused: unknown, frameFocused?: unknown) {
  const host = new FakeHost();
  host.addTab({ tabId: 1, url: `${SHOP}/checkout`, title: 'Checkout' });
  host.frames = [
    { frameId: 0, url: `${SHOP}/checkout`, width: 800, height: 600 },
    { frameId: 3, url: `${FORM}/card`, width: 300, height: 200 },
  ];
  host.page = (_t, frameId, req) => {
    if (req.op === 'describe')
      return {
        ok: true,
        result: { element: frameId === 3 ? frameFocused : req.ref === 'e5' ? PAY : LINK },
      };
    if (req.op === 'describe_at')
      return { ok: true, result: { element: req.x === 5 ? PAY : LINK } };
    if (req.op === 'describe_focused') {
      if (frameId === 3) return { ok: true, result: { element: frameFocused, hasFocus: true } };
      return {
        ok: true,
        result: frameFocused
          ? { inFrame: true, hasFocus: false }
          : { element: focused, hasFocus: true },
      };
    }
    return { ok: true, result: {} };
  };
  const { tools } = createBrowserTools(host, { thumbnails: false });
  const judge = async (
    name: string,
    params: Record<string, unknown>,
  ): Promise<{ target: ToolTarget; verdict: Verdict }> => {
    const tool = tools.find((t) => t.name === name) as AgentTool<Record<string, unknown>>;
    const target =
      (await tool.resolveTarget!(tool.parameters.parse(params) as Record<string, unknown>, ctx)) ??
      {};
    const descriptor = describeTool(tool as AgentTool);
    const key = permissionKey(descriptor, target);
    const rule = key === SHOP || key === FORM ? 'allow' : undefined;
    return { target, verdict: decideVerdict({ descriptor, target, rule, approvalMode: 'act' }) };
  };
  return { judge };
}

const RUNS = { numRuns: 60 };

describe('one action, one verdict', () => {
  it('every spelling of Enter or Space is the key both executors press', () => {
    fc.assert(
      fc.property(fc.oneof(withMods(enterSpelling), withMods(spaceSpelling)), (spelling) => {
        const { key } = parseKeyCombo(spelling);
        expect(['Enter', ' ']).toContain(key);
        // The executors get the judged key; fed the raw spelling they agree with the judgement too.
        expect(keySpec(key)?.key).toBe(key);
        expect(keyDef(key)?.key).toBe(key);
        const bare = spelling.includes('+') ? spelling.split('+').pop()! : spelling;
        expect(keySpec(bare)?.key).toBe(key);
        expect(keyDef(bare)?.key).toBe(key);
      }),
      RUNS,
    );
  });

  it('any key name is judged as the executors read it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 12 }),
          fc.constantFrom('Tab', 'tab', '\t', 'ESC', 'pgdn', 'F5', 'a', 'A'),
        ),
        (name) => {
          let judged: string;
          try {
            judged = parseKeyCombo(name).key;
          } catch {
            return;
          }
          if (judged.includes('+') || name.includes('+')) return;
          const spec = keySpec(judged);
          if (spec) expect(spec.key).toBe(judged);
          const def = keyDef(judged);
          if (def) expect(def.key).toBe(judged);
        },
      ),
      RUNS,
    );
  });

  it('Enter on the Pay button asks, however it is spelled and routed', async () => {
    const { judge } = setup(PAY);
    await fc.assert(
      fc.asyncProperty(enterSpelling, spaceSpelling, fc.boolean(), async (enter, space, useRef) => {
        const ref = useRef ? { ref: 'e5' } : {};
        const calls: Array<[string, Record<string, unknown>]> = [
          ['browser_press_key', { key: enter, ...ref }],
          ['browser_press_key', { key: space, ...ref }],
          ['browser_keyboard', { keys: [enter], ...ref }],
          ['browser_keyboard', { keys: [space], ...ref }],
          ['browser_keyboard', { text: `x${enter.length <= 2 ? enter : '\r'}`, ...ref }],
        ];
        for (const [name, params] of calls) {
          const { target, verdict } = await judge(name, params);
          expect(verdict, `${name} ${JSON.stringify(params)}`).toMatchObject({
            kind: 'ask',
            reason: 'always_ask:submits a form with payment card fields',
          });
          expect(target.origin).toBe(SHOP);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a newline typed into a card field is the Enter it dispatches: judged as a submit', async () => {
    const card = {
      ...button('Card number', {}),
      tag: 'input',
      role: 'textbox',
      submitsForm: 'enter',
      submitsPaymentForm: true,
    };
    const { judge } = setup(undefined, card);
    for (const text of ['4242\n', '4242\r', '4242\r\n']) {
      const { verdict } = await judge('browser_type', { ref: 'f3e2', text });
      expect(verdict, JSON.stringify(text)).toMatchObject({
        kind: 'ask',
        reason: 'always_ask:submits a form with payment card fields',
      });
    }
    expect((await judge('browser_type', { ref: 'f3e2', text: '4242' })).verdict.kind).toBe('allow');
  });

  it('Enter on a focused link to another site is judged on that site', async () => {
    const { judge } = setup(LINK);
    await fc.assert(
      fc.asyncProperty(withMods(enterSpelling), async (enter) => {
        for (const [name, params] of [
          ['browser_press_key', { key: enter }],
          ['browser_press_key', { key: enter, ref: 'e7' }],
          ['browser_keyboard', { keys: [enter] }],
        ] as Array<[string, Record<string, unknown>]>) {
          const { target, verdict } = await judge(name, params);
          expect(target.origin, `${name} ${JSON.stringify(params)}`).toBe(EVIL);
          expect(verdict.kind).toBe('ask');
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a click by ref and a click at the point of the same element get the same verdict and origin', async () => {
    const { judge } = setup(PAY);
    for (const [ref, x] of [
      ['e5', 5],
      ['e7', 9],
    ] as const) {
      const byRef = await judge('browser_mouse', { action: 'click', ref });
      const byPoint = await judge('browser_mouse', { action: 'click', x, y: 5 });
      const synthetic = await judge('browser_click', { ref });
      expect(byPoint.verdict).toEqual(byRef.verdict);
      expect(byPoint.target.origin).toBe(byRef.target.origin);
      expect(synthetic.target.origin).toBe(byRef.target.origin);
      expect(synthetic.target.alwaysAsk).toBe(byRef.target.alwaysAsk);
    }
  });

  it('Tab and then Enter or Space always asks: the element it lands on is not known in advance', async () => {
    const { judge } = setup({ ...button('Search', {}), submitsForm: 'click' });
    await fc.assert(
      fc.asyncProperty(
        enterSpelling,
        fc.constantFrom('Tab', 'tab', 'Shift+Tab'),
        fc.boolean(),
        async (enter, tab, asText) => {
          const params = asText
            ? { text: `\t${enter.length <= 2 ? enter : '\n'}` }
            : { keys: [tab, enter] };
          const { verdict } = await judge('browser_keyboard', params);
          expect(verdict).toMatchObject({ kind: 'ask' });
          expect(verdict.kind === 'ask' && verdict.reason).toMatch(
            /^always_ask:moves focus with Tab/,
          );
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a write in a cross-origin frame is judged on the frame, by ref and by focus alike', async () => {
    const field = {
      ...button('Card number', {}),
      tag: 'input',
      role: 'textbox',
      submitsForm: 'enter',
      submitsPaymentForm: true,
    };
    const { judge } = setup(undefined, field);
    const byRef = await judge('browser_press_key', { key: 'Enter', ref: 'f3e2' });
    const byFocus = await judge('browser_press_key', { key: 'return' });
    const typed = await judge('browser_type', { ref: 'f3e2', text: '4242' });
    for (const { target } of [byRef, byFocus, typed]) {
      expect(target).toMatchObject({ origin: FORM, topOrigin: SHOP, url: `${FORM}/card` });
    }
    expect(byRef.verdict).toEqual(byFocus.verdict);
    expect(byRef.verdict).toMatchObject({
      kind: 'ask',
      reason: 'always_ask:submits a form with payment card fields',
    });
    // FORM has an allow rule of its own: typing there is covered by it, not by the shop's.
    expect(typed.verdict.kind).toBe('allow');
  });
});
