/**
 * The receiver's own check at the moment of effect (docs/permissions.md "Receiver checks at
 * dispatch", the guard). The service worker judges where a trusted key or mouse event will land
 * just before it sends it, but the page runs between that probe and the event: a timer can move
 * focus into another origin's frame, or slide a frame under the pointer, after the probe answered.
 * So while Keel sends trusted input to a tab, every document of the tab is armed and told whether
 * its own origin is cleared for that input. A document that is not cleared swallows the trusted
 * events it receives (preventDefault and stopImmediatePropagation at the window, in the capture
 * phase, before any of the page's listeners): the key inserts nothing and no page listener sees it.
 *
 * The listeners are installed at document_start (input-guard-entry.ts), before any page script,
 * so the page cannot register a window capture listener ahead of them. Only `isTrusted` events
 * are touched and only while armed; an arm expires on its own (`ttlMs`), so a worker stopped
 * mid-call does not leave a page refusing the user's own typing for long.
 *
 * The guard also says how many keys a cleared document really received, which is what a held
 * call resumes from: a key that reaches a document whose focus is on a frame element (focus is
 * still moving into that frame) goes nowhere useful, so it is swallowed and not counted, and is
 * sent again after approval.
 */

export type GuardKind = 'keys' | 'pointer';

export interface GuardArm {
  /** Names one call's run; a later arm replaces it, a disarm must name it. */
  token: string;
  /** Whether this document's origin may receive the input. */
  cleared: boolean;
  kinds: readonly GuardKind[];
  ttlMs: number;
}

export interface GuardReport {
  /** Whether this document was armed with that token when asked. */
  armed: boolean;
  /** Keys this document received and let through (modifier presses not counted). */
  accepted: number;
  /** Trusted events swallowed, by type. */
  swallowed: Record<string, number>;
}

export interface InputGuard {
  arm(a: GuardArm): GuardReport;
  disarm(token: string): GuardReport;
}

const KEY_EVENTS = ['keydown', 'keypress', 'keyup', 'beforeinput', 'input'] as const;
const POINTER_EVENTS = [
  'pointerdown',
  'pointerup',
  'pointermove',
  'pointerover',
  'pointerout',
  'pointerenter',
  'pointerleave',
  'pointercancel',
  'mousedown',
  'mouseup',
  'mousemove',
  'mouseover',
  'mouseout',
  'mouseenter',
  'mouseleave',
  'click',
  'dblclick',
  'auxclick',
  'contextmenu',
  'wheel',
  'dragstart',
  'dragenter',
  'dragover',
  'dragleave',
  'drop',
  'dragend',
] as const;
const KINDS: Record<string, GuardKind> = {
  ...Object.fromEntries(KEY_EVENTS.map((t) => [t, 'keys'])),
  ...Object.fromEntries(POINTER_EVENTS.map((t) => [t, 'pointer'])),
};
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'AltGraph']);
/** The longest an arm lasts without being renewed, whatever the worker asked. */
export const MAX_ARM_MS = 120_000;

const isFrameElement = (t: EventTarget | undefined): boolean => {
  const name = (t as Element | undefined)?.localName;
  return name === 'iframe' || name === 'frame';
};

const GLOBAL = Symbol.for('keel.inputGuard');
type GuardHost = Window & { [GLOBAL]?: InputGuard };

/**
 * Installs the guard on `win` once per isolated world (both content-script entries call it; the
 * first, at document_start, is the one whose listeners run before the page's).
 */
export function installInputGuard(
  win: Window,
  now: () => number = () => win.performance.now(),
  /** Whether the browser made the event (the user's or CDP's input); injected for unit tests. */
  trusted: (e: Event) => boolean = (e) => e.isTrusted,
): InputGuard {
  const host = win as GuardHost;
  const existing = host[GLOBAL];
  if (existing) return existing;

  let state:
    | (GuardArm & { until: number; accepted: number; swallowed: Record<string, number> })
    | undefined;
  /** A key went down here and was let through: its own beforeinput is not a separate stroke. */
  let keyDown = false;

  const current = () => (state && now() <= state.until ? state : undefined);
  const swallow = (e: Event, s: NonNullable<typeof state>) => {
    e.preventDefault();
    e.stopImmediatePropagation();
    s.swallowed[e.type] = (s.swallowed[e.type] ?? 0) + 1;
  };

  const onEvent = (e: Event) => {
    if (!trusted(e)) return;
    const s = current();
    if (!s) return;
    const kind = KINDS[e.type];
    if (!kind || !s.kinds.includes(kind)) return;
    if (!s.cleared) return swallow(e, s);
    if (kind !== 'keys') return;
    const target = e.composedPath()[0] ?? e.target ?? undefined;
    if (e.type === 'keydown') {
      // Focus is on a frame element of this document, yet the key came here: the focus is moving
      // into that frame and the key would reach neither. Not counted, so it is sent again.
      if (isFrameElement(target)) {
        keyDown = false;
        return swallow(e, s);
      }
      keyDown = true;
      if (!MODIFIER_KEYS.has((e as KeyboardEvent).key)) s.accepted++;
      return;
    }
    if (e.type === 'keyup') {
      keyDown = false;
      if (isFrameElement(target)) swallow(e, s);
      return;
    }
    // Text inserted without a key (Input.insertText, long text) is one stroke of its own.
    if (e.type === 'beforeinput' && !keyDown) s.accepted++;
  };
  for (const type of Object.keys(KINDS))
    win.addEventListener(type, onEvent, { capture: true, passive: false });

  const report = (s: typeof state, armed: boolean): GuardReport => ({
    armed,
    accepted: s?.accepted ?? 0,
    swallowed: { ...(s?.swallowed ?? {}) },
  });
  const guard: InputGuard = {
    arm(a) {
      keyDown = false;
      state = {
        ...a,
        kinds: [...a.kinds],
        until: now() + Math.min(Math.max(0, a.ttlMs), MAX_ARM_MS),
        accepted: 0,
        swallowed: {},
      };
      return report(state, true);
    },
    disarm(token) {
      const s = state?.token === token ? state : undefined;
      if (s) state = undefined;
      return report(s, Boolean(s));
    },
  };
  Object.defineProperty(host, GLOBAL, { value: guard, configurable: false, enumerable: false });
  return guard;
}
