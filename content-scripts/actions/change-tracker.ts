/**
 * Watches the DOM from just before an action until the page settles: how many mutations, when
 * the last one happened, and which dialogs or alerts appeared (the "short account of what
 * changed" an action returns). Our own overlay is ignored.
 */
import { normalizeSpace, clip } from '../dom/text';

const NOTABLE = '[role=dialog],[role=alertdialog],dialog[open],[role=alert],[aria-live=assertive],[role=status]';

export class ChangeTracker {
  mutations = 0;
  lastMutation: number;
  private readonly observer: MutationObserver;
  private readonly notable = new Set<Element>();
  private readonly listeners = new Set<() => void>();

  constructor(
    doc: Document,
    private readonly now: () => number,
    private readonly ignore: ReadonlySet<Element>,
    /** The acted-on element's document, when it is a same-origin iframe's. */
    also?: Document,
  ) {
    this.lastMutation = now();
    const view = doc.defaultView ?? window;
    this.observer = new view.MutationObserver((records) => this.onRecords(records));
    const options = { subtree: true, childList: true, attributes: true, characterData: true };
    this.observer.observe(doc, options);
    if (also && also !== doc) this.observer.observe(also, options);
  }

  private onRecords(records: MutationRecord[]): void {
    let counted = 0;
    for (const r of records) {
      if (this.isOurs(r)) continue;
      counted++;
      for (const n of Array.from(r.addedNodes)) this.collectNotable(n);
      if (r.type === 'attributes' && r.target.nodeType === 1) this.collectNotable(r.target);
    }
    if (!counted) return;
    this.mutations += counted;
    this.lastMutation = this.now();
    for (const l of this.listeners) l();
  }

  private isOurs(r: MutationRecord): boolean {
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
      for (const inner of Array.from(el.querySelectorAll(NOTABLE)).slice(0, 5)) this.notable.add(inner);
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
      if (typeof h.checkVisibility === 'function' && !h.checkVisibility({ visibilityProperty: true })) continue;
      const role = el.getAttribute('role') ?? (el.localName === 'dialog' ? 'dialog' : 'live region');
      const text = clip(normalizeSpace(h.innerText ?? el.textContent ?? ''), 160);
      if (text) out.push(`${role}: "${text}"`);
      if (out.length >= 5) break;
    }
    return out;
  }

  stop(): void {
    this.observer.disconnect();
    this.listeners.clear();
  }
}
