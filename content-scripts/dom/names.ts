/**
 * Accessible names per the accname spec (dom-accessibility-api), with the fallbacks a model
 * needs when a page forgot to label a control: placeholder, title, a link's path.
 */
import { computeAccessibleName } from 'dom-accessibility-api';
import { clip, normalizeSpace } from './text';
import type { StyleCache } from './visibility';

export const MAX_NAME_CHARS = 100;

const LABELABLE = new Set(['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea']);

/**
 * Containers of items of their own. A control named from its content (a tree folder, a menu
 * item with a submenu) is named by its own label, not by the items it holds: MUI's expanded
 * folder was `treeitem "Inbox Receipts Travel"`, each child listed again below it.
 */
const NESTED_ITEMS = new Set(['group', 'tree', 'treegrid', 'menu', 'menubar', 'listbox', 'grid']);

/** What accname is told about a nested item container: not part of the name (display: none). */
const LEFT_OUT = { getPropertyValue: (p: string) => (p === 'display' ? 'none' : '') };

/** The style lookup accname uses, with the nested item containers under `root` left out. */
function withoutNestedItems(
  root: Element,
  styles: StyleCache,
): (el: Element, pseudo?: string | null) => CSSStyleDeclaration {
  return (el, pseudo) => {
    if (el !== root) {
      const role = el.getAttribute('role');
      if (role !== null && NESTED_ITEMS.has(role))
        return LEFT_OUT as unknown as CSSStyleDeclaration;
    }
    return styles.computed(el, pseudo);
  };
}

/**
 * Label associations of one snapshot, built in one pass over the document's <label>s.
 *
 * Why: accname reads `element.labels` for every labelable element, and Chrome computes that
 * live list by walking the whole document — per button, quadratic on large pages (a 27,000-node
 * table with 3,000 buttons spent 75% of its snapshot there). While a name is computed, the
 * element gets an own `labels` property with the precomputed list. In the extension that
 * property lives on the content script's wrapper (isolated world): the page never sees it.
 */
export class LabelIndex {
  private readonly byDoc = new Map<Document, Map<Element, HTMLLabelElement[]>>();

  labelsOf(el: Element): HTMLLabelElement[] | undefined {
    const root = el.getRootNode();
    if (root.nodeType !== 9) return undefined; // shadow trees: let the library ask the element
    const doc = root as Document;
    let map = this.byDoc.get(doc);
    if (!map) {
      map = new Map();
      for (const label of Array.from(doc.querySelectorAll('label'))) {
        const control = label.control;
        if (!control) continue;
        const list = map.get(control);
        if (list) list.push(label);
        else map.set(control, [label]);
      }
      this.byDoc.set(doc, map);
    }
    return map.get(el) ?? [];
  }
}

export function accessibleName(
  el: Element,
  styles: StyleCache,
  max = MAX_NAME_CHARS,
  labels?: LabelIndex,
): string {
  let name = '';
  const known = labels && LABELABLE.has(el.localName) ? labels.labelsOf(el) : undefined;
  try {
    if (known) Object.defineProperty(el, 'labels', { value: known, configurable: true });
    // Pseudo-element text (::before/::after) is skipped: it is mostly icon-font glyphs, and
    // reading two extra computed styles per node doubled the cost of names on large pages.
    name = normalizeSpace(
      computeAccessibleName(el, {
        getComputedStyle: withoutNestedItems(el, styles),
        computedStyleSupportsPseudoElements: false,
      }),
    );
  } catch {
    // A page can break the walk (exotic custom elements, detached ids); fall back to text.
    name = normalizeSpace(el.textContent ?? '');
  } finally {
    if (known) delete (el as { labels?: unknown }).labels;
  }
  if (!name) name = fallbackName(el);
  return clip(name, max);
}

function fallbackName(el: Element): string {
  const placeholder = el.getAttribute('placeholder') ?? el.getAttribute('aria-placeholder');
  if (placeholder) return normalizeSpace(placeholder);
  const title = el.getAttribute('title');
  if (title) return normalizeSpace(title);
  if (el.localName === 'a') {
    const href = el.getAttribute('href') ?? '';
    if (href && !href.startsWith('javascript:')) return shortHref(el as HTMLAnchorElement);
  }
  if (el.localName === 'input' && (el as HTMLInputElement).type === 'file') return 'Choose file';
  return '';
}

/** Same-document links show their path, others their host and path: enough to tell them apart. */
function shortHref(a: HTMLAnchorElement): string {
  try {
    const url = new URL(a.href);
    const here = a.ownerDocument.location;
    const tail = `${url.pathname}${url.search}${url.hash}`;
    return url.origin === here.origin ? tail : `${url.host}${tail}`;
  } catch {
    return a.getAttribute('href') ?? '';
  }
}
