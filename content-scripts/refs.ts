/**
 * Element refs for one content-script instance (one document and its same-origin iframes).
 *
 * A ref is handed out once per element and kept for the element's lifetime (WeakMap), so two
 * snapshots of an unchanged element show the same ref. Lookup never guesses: an element that
 * left the DOM, or whose document was replaced (an iframe navigated), is reported stale rather
 * than substituted. Numbers are never reused within the instance; a new document gets a new
 * instance with a new `docId`, which the service worker checks so old refs cannot hit a new page.
 */
export type RefLookup = { kind: 'ok'; element: Element } | { kind: 'stale' } | { kind: 'unknown' };

export class RefRegistry {
  private readonly byElement = new WeakMap<Element, string>();
  private readonly byRef = new Map<string, WeakRef<Element>>();
  private next = 1;

  constructor(readonly docId: string) {}

  refFor(el: Element): string {
    let ref = this.byElement.get(el);
    if (ref === undefined) {
      ref = `e${this.next++}`;
      this.byElement.set(el, ref);
      this.byRef.set(ref, new WeakRef(el));
    }
    return ref;
  }

  /** The highest number handed out so far (0: none yet). */
  get high(): number {
    return this.next - 1;
  }

  /**
   * Continue numbering above `n`. The service worker passes the highest ref any earlier document
   * of the same frame handed out, so a new page never reuses a number the model may still hold
   * from the old one (a stale `e1` must not name this page's `e1`).
   */
  skipTo(n: number): void {
    if (Number.isSafeInteger(n) && n >= this.next) this.next = n + 1;
  }

  /** The element's ref if it already has one (does not assign). */
  peek(el: Element): string | undefined {
    return this.byElement.get(el);
  }

  lookup(ref: string): RefLookup {
    const weak = this.byRef.get(ref);
    if (!weak) return { kind: 'unknown' };
    const el = weak.deref();
    if (!el || !isLive(el)) return { kind: 'stale' };
    return { kind: 'ok', element: el };
  }

  /** Drops refs whose elements are gone, so the map does not grow without bound on long sessions. */
  prune(): void {
    for (const [ref, weak] of this.byRef) {
      const el = weak.deref();
      if (!el || !isLive(el)) this.byRef.delete(ref);
    }
  }

  get size(): number {
    return this.byRef.size;
  }
}

/** Connected to a document that is still shown in its frame (a navigated iframe's old document has no window). */
export function isLive(el: Element): boolean {
  return el.isConnected && el.ownerDocument.defaultView !== null;
}
