/**
 * Watches the DOM from just before an action until the page settles: how many mutations, when
 * the last one happened, and which dialogs or alerts appeared (the "short account of what
 * changed" an action returns). Our own overlay is ignored.
 *
 * A document observer does not see inside shadow roots, where web-component apps render: every
 * shadow root present when the action starts is observed too, and so is each one that arrives
 * with added nodes — otherwise a todo added by a Lit app would read "no visible change".
 */
import { normalizeSpace, clip } from '../dom/text';
import { composedElements, mayHostShadow, type ShadowOf } from '../dom/composed';
import { HOVER_ATTR } from '../dom/hover-reveal';

const NOTABLE =
  '[role=dialog],[role=alertdialog],dialog[open],[role=alert],[aria-live=assertive],[role=status]';

export class ChangeTracker {
  mutations = 0;
  lastMutation: number;
  private navigation: NavigateEventLike | null = null;
  private readonly stopNavigation: () => void;
  private readonly observer: MutationObserver;
  private readonly notable = new Set<Element>();
  private readonly listeners = new Set<() => void>();
  private readonly observed = new WeakSet<Node>();
  private readonly options = {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  };

  constructor(
    doc: Document,
    private readonly now: () => number,
    private readonly ignore: ReadonlySet<Element>,
    /** The acted-on element's document, when it is a same-origin iframe's. */
    also?: Document,
    private readonly shadowOf: ShadowOf = (el) => el.shadowRoot,
  ) {
    this.lastMutation = now();
    const view = doc.defaultView ?? window;
    this.observer = new view.MutationObserver((records) => this.onRecords(records));
    this.observe(doc);
    if (also && also !== doc) this.observe(also);
    this.stopNavigation = watchNavigation(also ?? doc, (ev) => {
      this.navigation = ev;
    });
  }

  /** Observes `root` and every shadow root (and same-origin frame document) inside it. */
  private observe(root: Document | Element): void {
    const start = root.nodeType === 9 ? (root as Document).documentElement : (root as Element);
    if (root.nodeType === 9) this.watch(root);
    if (!start) return;
    for (const el of composedElements(start, this.shadowOf)) {
      const shadow = mayHostShadow(el) ? this.shadowOf(el) : null;
      if (shadow) this.watch(shadow);
      if (el.localName === 'iframe' || el.localName === 'frame') {
        const inner = (el as HTMLIFrameElement).contentDocument;
        if (inner) this.watch(inner);
      }
    }
  }

  private watch(node: Node): void {
    if (this.observed.has(node)) return;
    this.observed.add(node);
    this.observer.observe(node, this.options);
  }

  private onRecords(records: MutationRecord[]): void {
    let counted = 0;
    for (const r of records) {
      if (this.isOurs(r)) continue;
      counted++;
      for (const n of Array.from(r.addedNodes)) {
        this.collectNotable(n);
        if (n.nodeType === 1) this.observe(n as Element);
      }
      if (r.type === 'attributes' && r.target.nodeType === 1) this.collectNotable(r.target);
    }
    if (!counted) return;
    this.mutations += counted;
    this.lastMutation = this.now();
    for (const l of this.listeners) l();
  }

  private isOurs(r: MutationRecord): boolean {
    // The hover an action emulates for a hover-only control (dom/hover-reveal.ts).
    if (r.type === 'attributes' && r.attributeName === HOVER_ATTR) return true;
    if (r.type === 'childList' && isHoverStyle(r)) return true;
    for (const el of this.ignore) {
      if (r.target === el || el.contains(r.target)) return true;
      if (r.addedNodes.length === 1 && r.addedNodes[0] === el) return true;
      if (r.removedNodes.length === 1 && r.removedNodes[0] === el) return true;
    }
    return false;
  }

  private collectNotable(n: Node): void {
    if (n.nodeType !== 1) return;
    const el = n as Element;
    if (el.matches(NOTABLE)) this.notable.add(el);
    if (this.notable.size < 20 && el.firstElementChild) {
      for (const inner of Array.from(el.querySelectorAll(NOTABLE)).slice(0, 5))
        this.notable.add(inner);
    }
  }

  /** Resolves once no mutation happened for `quietMs`, or at `deadline`. True when quiet. */
  waitQuiet(quietMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = this.now() + timeoutMs;
    return new Promise((resolve) => {
      const check = () => {
        const t = this.now();
        const quietFor = t - this.lastMutation;
        if (quietFor >= quietMs) return resolve(true);
        if (t >= deadline) return resolve(false);
        setTimeout(check, Math.min(quietMs - quietFor, deadline - t) + 5);
      };
      check();
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Dialogs, alerts and status messages that appeared and are still shown. */
  appeared(): string[] {
    const out: string[] = [];
    for (const el of this.notable) {
      if (!el.isConnected) continue;
      const h = el as HTMLElement;
      if (
        typeof h.checkVisibility === 'function' &&
        !h.checkVisibility({ visibilityProperty: true })
      )
        continue;
      const role =
        el.getAttribute('role') ?? (el.localName === 'dialog' ? 'dialog' : 'live region');
      const text = clip(normalizeSpace(h.innerText ?? el.textContent ?? ''), 160);
      if (text) out.push(`${role}: "${text}"`);
      if (out.length >= 5) break;
    }
    return out;
  }

  /** Destination of a navigation started while tracking that the page did not cancel. */
  get navigatingTo(): string | null {
    const ev = this.navigation;
    return ev && !ev.defaultPrevented ? (ev.destination?.url ?? null) : null;
  }

  stop(): void {
    this.stopNavigation();
    this.observer.disconnect();
    this.listeners.clear();
  }
}

interface NavigateEventLike extends Event {
  destination?: { url?: string };
  canIntercept?: boolean;
  hashChange?: boolean;
  downloadRequest?: string | null;
}

/**
 * Calls `onNavigate` with the destination when the document starts a navigation that leaves it
 * (a link, a form, location.assign). Until the server answers, the old page stays up and quiet:
 * without this, a click on a slow link would read as "no visible change". Same-document
 * navigations (hash changes, a router's pushState) are reported through the URL instead.
 */
function watchNavigation(doc: Document, onNavigate: (ev: NavigateEventLike) => void): () => void {
  const nav = (doc.defaultView as unknown as { navigation?: EventTarget } | null)?.navigation;
  if (!nav) return () => undefined;
  const listener = (e: Event) => {
    const ev = e as NavigateEventLike;
    if (ev.hashChange || ev.downloadRequest || !ev.destination?.url) return;
    onNavigate(ev);
  };
  nav.addEventListener('navigate', listener);
  return () => nav.removeEventListener('navigate', listener);
}

/** The <style> the hover emulation adds where a stylesheet cannot be adopted. */
function isHoverStyle(r: MutationRecord): boolean {
  const nodes = [...Array.from(r.addedNodes), ...Array.from(r.removedNodes)];
  const node = nodes.length === 1 ? nodes[0] : null;
  return node?.nodeType === 1 && (node as Element).hasAttribute(HOVER_ATTR);
}
