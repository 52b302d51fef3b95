/**
 * The composed tree: what a user sees is the flattened tree of the document, its open (and, in
 * the extension, closed) shadow roots with their slots filled, and its same-origin iframes.
 * find, the snapshot and the actions all walk it through these helpers so they see one tree:
 * text the snapshot shows is text find finds, and the element a click hits is one find named.
 */

/** Gives the shadow root of a host (open, or closed through chrome.dom in the extension). */
export type ShadowOf = (el: Element) => ShadowRoot | null;

/** The elements attachShadow accepts (HTML spec): autonomous custom elements and these. */
const SHADOW_HOSTS = new Set([
  'article',
  'aside',
  'blockquote',
  'body',
  'div',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'main',
  'nav',
  'p',
  'section',
  'span',
]);

/**
 * Whether `el` can have a shadow root at all. Asking only these keeps walks cheap where the
 * question is a chrome.dom call per element (closed roots, in the extension).
 */
export function mayHostShadow(el: Element): boolean {
  return el.localName.includes('-') || SHADOW_HOSTS.has(el.localName) || el.hasAttribute('is');
}

/**
 * The rendered children of `node`: a host's shadow tree (its light children only show through
 * slots), a slot's assigned nodes (or its fallback content), otherwise the child nodes.
 */
export function composedChildren(node: Element, shadowOf: ShadowOf): Node[] {
  const shadow = mayHostShadow(node) ? shadowOf(node) : null;
  if (shadow) return Array.from(shadow.childNodes);
  if (node.localName === 'slot') {
    const assigned = (node as HTMLSlotElement).assignedNodes({ flatten: true });
    if (assigned.length) return assigned;
  }
  return Array.from(node.childNodes);
}

/** The composed parent: the slot an element is assigned to, its parent, or its shadow host. */
export function composedParent(el: Element): Element | null {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  const root = el.getRootNode();
  return root instanceof (el.ownerDocument.defaultView ?? window).ShadowRoot
    ? (root as ShadowRoot).host
    : null;
}

/** `outer` is `inner` or one of its composed ancestors (within one document). */
export function composedContains(outer: Element, inner: Element): boolean {
  for (let p: Element | null = inner; p; p = composedParent(p)) if (p === outer) return true;
  return false;
}

/** The nearest composed ancestor-or-self matching `selector` (closest() stops at shadow roots). */
export function composedClosest(el: Element, selector: string): Element | null {
  for (let p: Element | null = el; p; p = composedParent(p)) if (p.matches(selector)) return p;
  return null;
}

/** The document of a same-origin iframe, or null (cross-origin, not loaded). */
export function frameDocument(el: Element): Document | null {
  if (el.localName !== 'iframe' && el.localName !== 'frame') return null;
  try {
    return (el as HTMLIFrameElement).contentDocument;
  } catch {
    return null;
  }
}

/**
 * Every element of the composed tree under `root`, in document order, entering shadow roots,
 * filled slots and same-origin iframes (their body). Skips the children of `skip`ped elements.
 */
export function* composedElements(
  root: Element,
  shadowOf: ShadowOf,
  skip: (el: Element) => boolean = () => false,
): Generator<Element> {
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop() as Node;
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    yield el;
    if (skip(el)) continue;
    const inner = frameDocument(el);
    const children = inner ? (inner.body ? [inner.body] : []) : composedChildren(el, shadowOf);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/**
 * The element a pointer at `(x, y)` (in `doc`'s viewport) lands on, through shadow roots: the
 * document's hit is a host when the point is over shadow content, so descend while the hit
 * has a shadow root that hits deeper.
 */
export function deepElementFromPoint(
  doc: Document,
  x: number,
  y: number,
  shadowOf: ShadowOf,
): Element | null {
  let hit = doc.elementFromPoint(x, y);
  for (let depth = 0; hit && depth < 32; depth++) {
    const shadow = shadowOf(hit);
    const inner = shadow?.elementFromPoint(x, y) ?? null;
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/** The focused element, through shadow roots (document.activeElement is the outermost host). */
export function deepActiveElement(doc: Document, shadowOf: ShadowOf): Element | null {
  let active = doc.activeElement;
  for (let depth = 0; active && depth < 32; depth++) {
    const inner = shadowOf(active)?.activeElement ?? null;
    if (!inner) break;
    active = inner;
  }
  return active;
}
