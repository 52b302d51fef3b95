/**
 * Controls that exist only while the pointer is over them or their row: TodoMVC's destroy button
 * (`li .destroy { display: none }`, `li:hover .destroy { display: block }`), row actions in
 * tables and lists. Synthetic pointer events never set CSS `:hover`, so such a control stays
 * `display: none` for L1 input: the snapshot would not show it and a click could not land on it.
 *
 * Two parts, both from the page's own style rules (the CSSOM; cross-origin sheets cannot be read
 * and stay L2 territory):
 * - `revealedOnHover` — would a `:hover` rule show this hidden element? The snapshot lists it,
 *   flagged `[on hover]`.
 * - `emulateHover` — for the duration of one action, the page's `:hover` rules also apply to the
 *   element and its composed ancestors (what a real pointer over it hovers): each rule is copied
 *   with `:hover` replaced by an attribute the action sets on that chain, in a stylesheet adopted
 *   into every scope (document, shadow roots) on the way. The control is then laid out, visible
 *   and hit-tested like any other; `restore` removes every trace.
 */

const HOVER = /:hover\b/;
/** Set on the hovered chain while an action emulates :hover (the change tracker ignores it). */
export const HOVER_ATTR = 'data-keel-hover';

type Scope = Document | ShadowRoot;

/** A scope's style rules whose selector has `:hover`, in cascade order (media that applies). */
export function hoverRules(scope: Scope): CSSStyleRule[] {
  const out: CSSStyleRule[] = [];
  const win = (isDocument(scope) ? scope : scope.ownerDocument).defaultView ?? window;
  const visit = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      if ('selectorText' in rule && typeof rule.selectorText === 'string') {
        if (HOVER.test(rule.selectorText)) out.push(rule as CSSStyleRule);
        continue;
      }
      if ('media' in rule && 'cssRules' in rule) {
        const media = (rule as CSSMediaRule).media.mediaText;
        if (media && !win.matchMedia(media).matches) continue;
      }
      if ('cssRules' in rule) visit((rule as CSSGroupingRule).cssRules);
    }
  };
  const sheets = [
    ...Array.from(scope.styleSheets ?? []),
    ...Array.from(scope.adoptedStyleSheets ?? []),
  ];
  for (const sheet of sheets) {
    if (sheet.disabled) continue;
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // a cross-origin sheet: its rules are not readable
    }
    visit(rules);
  }
  return out;
}

/** Top-level commas only (not those inside `:is(a, b)`). */
function selectorParts(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** The selector as it reads with the pointer over the element: `li:hover .x` → `li .x`. */
export function withoutHover(selector: string): string {
  return selector.replace(/(^|[\s>+~(,]):hover\b/g, '$1*').replace(/:hover\b/g, '');
}

function reveals(rule: CSSStyleRule): boolean {
  const s = rule.style;
  const display = s.getPropertyValue('display');
  if (display && display !== 'none') return true;
  const visibility = s.getPropertyValue('visibility');
  if (visibility === 'visible') return true;
  const opacity = s.getPropertyValue('opacity');
  return opacity !== '' && parseFloat(opacity) > 0;
}

/** Per snapshot: the selectors of each scope's revealing :hover rules, read and rewritten once. */
export class HoverRevealIndex {
  private readonly byScope = new Map<Scope, string[]>();

  /** Each revealing rule's `:hover` parts as they read with the pointer over the row. */
  private selectorsOf(scope: Scope): string[] {
    let selectors = this.byScope.get(scope);
    if (!selectors) {
      selectors = [];
      for (const rule of hoverRules(scope).filter(reveals))
        for (const part of selectorParts(rule.selectorText))
          if (HOVER.test(part)) selectors.push(withoutHover(part));
      this.byScope.set(scope, selectors);
    }
    return selectors;
  }

  /**
   * Whether a `:hover` rule of the element's own scope would show it: a rule that sets a
   * revealing property and whose selector, read with the pointer over the element's row,
   * matches it. A heuristic for listing only; the click itself checks with `emulateHover`.
   */
  revealedOnHover(el: Element): boolean {
    const root = el.getRootNode();
    if (!isDocument(root) && !isShadowRoot(root)) return false;
    for (const selector of this.selectorsOf(root as Scope)) {
      try {
        if (el.matches(selector)) return true;
      } catch {
        // a selector that reads differently without :hover (`:host(:hover)`): not judged
      }
    }
    return false;
  }
}

function isShadowRoot(n: Node): n is ShadowRoot {
  return n.nodeType === 11 && 'host' in n;
}

/** nodeType, not instanceof: a same-origin iframe's document is of another realm. */
function isDocument(n: Node): n is Document {
  return n.nodeType === 9;
}

export interface HoverEmulation {
  restore(): void;
}

/**
 * Applies the page's `:hover` rules to `el` and its composed ancestors until `restore`.
 * Does nothing (and restores to nothing) when no scope on the way has a hover rule.
 */
export function emulateHover(el: Element): HoverEmulation {
  const chain: Element[] = [];
  const scopes: Scope[] = [];
  for (let cur: Element | null = el; cur; ) {
    chain.push(cur);
    const root = cur.getRootNode();
    if (isShadowRoot(root) || isDocument(root)) {
      if (!scopes.includes(root as Scope)) scopes.push(root as Scope);
    }
    cur =
      cur.assignedSlot ??
      cur.parentElement ??
      (isShadowRoot(root) ? (root as ShadowRoot).host : null);
  }
  const undo: (() => void)[] = [];
  for (const scope of scopes) {
    const rules = hoverRules(scope);
    if (!rules.length) continue;
    const text = rules
      .map(
        (r) => `${r.selectorText.replace(/:hover\b/g, `[${HOVER_ATTR}]`)} { ${r.style.cssText} }`,
      )
      .join('\n');
    undo.push(adopt(scope, text));
  }
  if (!undo.length) return { restore: () => {} };
  for (const e of chain) e.setAttribute(HOVER_ATTR, '');
  return {
    restore: () => {
      for (const e of chain) e.removeAttribute(HOVER_ATTR);
      for (const u of undo) u();
    },
  };
}

/** Adds a stylesheet to the scope (adopted; a <style> element where adoption is refused). */
function adopt(scope: Scope, text: string): () => void {
  const doc = isDocument(scope) ? scope : scope.ownerDocument;
  const view = (doc.defaultView ?? window) as Window & typeof globalThis;
  try {
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(text);
    scope.adoptedStyleSheets = [...scope.adoptedStyleSheets, sheet];
    return () => {
      scope.adoptedStyleSheets = scope.adoptedStyleSheets.filter((s) => s !== sheet);
    };
  } catch {
    const style = doc.createElement('style');
    style.setAttribute(HOVER_ATTR, '');
    style.textContent = text;
    (isDocument(scope) ? (doc.head ?? doc.documentElement) : scope).append(style);
    return () => style.remove();
  }
}
