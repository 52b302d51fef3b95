/**
 * Walks the composed tree (open and closed shadow roots, slots, same-origin iframes) and builds
 * the outline lines. One pass; each element costs one computed style and one box.
 *
 * Line kinds: `control` lines carry refs (`- button "Add to cart" [ref=e41]`), `heading` lines
 * are markdown headings, `section` lines open a landmark whose children are indented, `text`
 * lines are clipped visible text, `media` lines name images, `frame` lines name iframes.
 */
import type { PageEnv } from '../env';
import { actionableOf, innerControls } from '../dom/interactive';
import { accessibleName, LabelIndex } from '../dom/names';
import { controlLine } from '../dom/control-line';
import { ownText } from '../dom/own-text';
import { HoverRevealIndex } from '../dom/hover-reveal';
import { hoverOnlyControls, shownText } from './hover-only';
import { headingLevel, roleOf, SECTION_ROLES } from '../dom/roles';
import { rowTextOf } from '../dom/row-name';
import { derivedNameOf } from '../dom/derived-name';
import { stateOf } from '../dom/state';
import { clip, normalizeSpace, quote } from '../dom/text';
import {
  intersectsViewport,
  isClippedAway,
  isCollapsedBox,
  isInvisible,
  isOffscreen,
  isSubtreeHidden,
  StyleCache,
  type Viewport,
} from '../dom/visibility';
import type { RefRegistry } from '../refs';
import { TextEnv } from './text-env';
import { drawnOutOfOrder, readingOrder } from './visual-order';
import { controlNode, type OutlineNode } from './outline-lines';

export type LineKind = 'text' | 'heading' | 'control' | 'section' | 'media' | 'frame';

export interface SnapshotLine {
  depth: number;
  kind: LineKind;
  text: string;
  /** What the line says, as data (outline-lines.ts). */
  node?: OutlineNode;
}

export interface WalkOptions {
  viewportOnly: boolean;
  /** Characters kept per text block. */
  textLimit: number;
  /** Prepended to every ref (`f3` for frame 3) so refs name their frame. */
  refPrefix: string;
  /** Append ` -> url` to links. */
  includeUrls: boolean;
  /** Elements never shown (our own overlay). */
  exclude: ReadonlySet<Element>;
  /** Stop walking once this many characters were emitted (a bound on time for huge pages). */
  maxChars: number;
  /** Random per document and unknown to the page: frame placeholders it cannot forge. */
  frameNonce: string;
}

/** A cross-origin iframe as the service worker needs it to find the frame's extension frameId. */
export interface CrossFrame {
  index: number;
  src: string;
  width: number;
  height: number;
}

interface Ctx {
  depth: number;
  pointer: boolean;
  /** Readability of the current element's own text, computed only if it has text. */
  text: TextEnv;
  /** Inside a control whose name already carries its text: only nested controls are emitted. */
  inControl: boolean;
  /** Inside a wrapper control named by its own text: that text is not repeated as lines. */
  textTaken?: boolean;
  vp: Viewport;
}

/**
 * Containers the page named (`<div role="listbox" aria-label="Change language">`): their name
 * says what their items choose or do, so they are listed as a header over their items, not
 * dropped for them (issue 26, point 3). Unnamed ones stay invisible: a header without a name
 * would only cost tokens.
 */
/** A chart can draw thousands of shapes: past this many, its controls are left to browser_find. */
const MAX_SVG_CONTROLS = 200;

const NAMED_CONTAINER_ROLES = new Set([
  'listbox',
  'radiogroup',
  'tablist',
  'menu',
  'menubar',
  'tree',
  'treegrid',
  'grid',
  'toolbar',
  'group',
]);

function hasOwnLabel(el: Element): boolean {
  return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
}

const SKIP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'datalist',
  'param',
  'source',
  'track',
  'object',
  'embed',
  'canvas',
  'audio',
  'map',
]);

// Text made only of separators ("|", "·", "/") adds tokens and no meaning once links are lines.
const NOISE = /^[\s|·•:,;/\\>»«›‹\-–—()[\]{}*+#~=_.]*$/;
const TEXT_CONTROL_TAGS = new Set(['input', 'textarea', 'select']);
/** Controls a page may hide and draw through their label (CSS-only toggles). */
const TOGGLE_ROLES = new Set(['checkbox', 'radio', 'switch']);

/** Beyond this many children a container is not reordered (a long list is not a toolbar). */
const MAX_REORDERED = 40;

/** The `- role "name"` head of a control line that has a name of its own. */
const NAMED_LINE = /^- [\w-]+ "(?:[^"\\]|\\.)*"/;

export class SnapshotWalker {
  readonly lines: SnapshotLine[] = [];
  readonly crossFrames: CrossFrame[] = [];
  readonly styles = new StyleCache();
  private readonly labels = new LabelIndex();
  private readonly hoverReveal = new HoverRevealIndex();
  refs = 0;
  chars = 0;
  stopped = false;
  private buf = '';
  private bufPrefix = '';
  private bufDepth = 0;
  private out: SnapshotLine[] = this.lines;

  constructor(
    private readonly env: PageEnv,
    private readonly registry: RefRegistry,
    private readonly opts: WalkOptions,
  ) {}

  walkDocument(doc: Document, depth: number): void {
    const root = doc.body ?? doc.documentElement;
    if (!root) return;
    const win = doc.defaultView ?? this.env.win;
    const vp: Viewport = {
      width: win.innerWidth,
      height: win.innerHeight,
      scrollX: win.scrollX,
      scrollY: win.scrollY,
      docWidth: doc.documentElement.scrollWidth,
    };
    const ctx: Ctx = { depth, pointer: false, text: new TextEnv(null, null), inControl: false, vp };
    this.walkElement(root, ctx);
    this.flush();
  }

  private walkChildren(el: Element, ctx: Ctx): void {
    const shadow = this.env.shadowRootOf(el);
    const parent: ParentNode = shadow ?? el;
    if (el.localName === 'slot') {
      const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
      if (assigned.length) {
        for (const n of assigned) this.walkNode(n, ctx);
        return;
      }
    }
    for (let n = parent.firstChild; n; n = n.nextSibling) {
      if (this.stopped) return;
      this.walkNode(n, ctx);
    }
  }

  private walkNode(n: Node, ctx: Ctx): void {
    if (n.nodeType === 3) {
      if (!ctx.inControl && !ctx.textTaken && !ctx.text.hidden)
        this.pushText((n as Text).data, ctx);
    } else if (n.nodeType === 1) {
      this.walkElement(n as Element, ctx);
    }
  }

  private walkElement(el: Element, parent: Ctx): void {
    const tag = el.localName;
    if (SKIP_TAGS.has(tag) || this.opts.exclude.has(el)) return;
    const style = this.styles.get(el);
    if (isSubtreeHidden(el, style)) {
      if (style.display === 'none' && !parent.inControl) this.hoverOnly(el, parent);
      return;
    }

    const display = style.display || 'inline';
    const position = style.position || 'static';
    // Table cells continue their row's line (joined with " | "); rows end it.
    const cell =
      display === 'table-cell' || (style.display === '' && (tag === 'td' || tag === 'th'));
    const inline = display.startsWith('inline') || display === 'contents' || cell;
    // A static inline element cannot be moved off-screen or clipped on its own, and its box
    // (the union of its line fragments) is only needed when it is a control: skip the layout read.
    const plainInline = display === 'inline' && position === 'static';
    let hasArea = display === 'contents' || plainInline;
    let measured = false;
    if (!hasArea) {
      const box = this.env.boxOf(el);
      measured = true;
      if (
        isCollapsedBox(style, box) ||
        isClippedAway(style, position, box) ||
        isOffscreen(position, box, parent.vp)
      )
        return;
      hasArea = box.width > 0 && box.height > 0;
      if (
        this.opts.viewportOnly &&
        hasArea &&
        position !== 'sticky' &&
        !intersectsViewport(box, parent.vp)
      ) {
        return;
      }
    }

    const ctx: Ctx = {
      depth: parent.depth,
      pointer: style.cursor === 'pointer',
      text: new TextEnv(style, parent.text),
      inControl: parent.inControl,
      vp: parent.vp,
    };
    const selfVisible = !isInvisible(style);

    if (tag === 'br') {
      this.flush();
      return;
    }
    if (tag === 'svg') {
      if (!parent.inControl && selfVisible) {
        // An icon drawn as an SVG that is itself the control (an onclick, a pointer cursor
        // starting on it) is listed as one, named by its label, title or icon (derived-name.ts).
        const own = hasArea ? actionableOf(el, roleOf(el), style, parent.pointer) : null;
        if (own) {
          this.control(el, own.role, ctx);
          return;
        }
        this.media(el, ctx);
        this.svgControls(el, style, ctx);
      }
      return;
    }
    if (tag === 'iframe' || tag === 'frame') {
      if (selfVisible && hasArea) this.frame(el as HTMLIFrameElement, ctx);
      return;
    }
    if (tag === 'img') {
      if (!parent.inControl && selfVisible && hasArea) this.media(el, ctx);
      return;
    }
    if (tag === 'label' && selfVisible) {
      const handled = this.label(el as HTMLLabelElement, ctx);
      if (handled) return;
    }

    const role = roleOf(el);
    let actionable =
      selfVisible && hasArea
        ? actionableOf(el, role, style, parent.pointer, parent.inControl)
        : null;
    if (actionable && !measured && display !== 'contents') {
      const box = this.env.boxOf(el);
      if (box.width === 0 || box.height === 0) actionable = null;
    }
    if (actionable && this.labelStandsIn(el)) return;
    if (actionable?.wrapper) {
      // A control holding controls (a folder row with a handler over its items): listed by its
      // own text, when it has some, and its controls listed after it.
      const own = ownText(el, innerControls(el));
      if (own) this.control(el, actionable.role, ctx, own);
      this.walkChildren(el, { ...ctx, textTaken: Boolean(own) });
      return;
    }
    if (actionable) {
      this.control(el, actionable.role, ctx);
      if (TEXT_CONTROL_TAGS.has(tag) || actionable.role === 'textbox') return;
      const leaf = !actionable.generic || (el.textContent ?? '').length <= 120;
      this.walkChildren(el, { ...ctx, inControl: ctx.inControl || leaf });
      return;
    }
    if (tag === 'details' && !(el as HTMLDetailsElement).open) {
      // A closed <details> shows only its summary (the rest is content-visibility: hidden).
      const summary = Array.from(el.children).find((c) => c.localName === 'summary');
      if (summary) this.walkElement(summary, ctx);
      return;
    }
    if (parent.inControl) {
      this.walkChildren(el, ctx);
      return;
    }
    if (role === 'heading') {
      this.heading(el, ctx);
      return;
    }
    if (role !== null && SECTION_ROLES.has(role)) {
      this.section(el, role, ctx);
      return;
    }
    if (role !== null && NAMED_CONTAINER_ROLES.has(role) && hasOwnLabel(el)) {
      const name = accessibleName(el, this.styles, 60, this.labels);
      if (name) {
        this.section(el, role, ctx, name);
        return;
      }
    }
    if (role === 'listitem' || display === 'list-item') {
      this.flush();
      this.bufPrefix = '- ';
      this.walkChildren(el, ctx);
      this.flush();
      return;
    }
    if (cell && this.buf.trim()) this.buf += ' | ';
    if (!inline) this.flush();
    if (!this.walkInDrawnOrder(el, style, ctx)) this.walkChildren(el, ctx);
    if (!inline) this.flush();
  }

  /**
   * Children drawn in another order than the DOM's (floated right, a reversed or reordered flex
   * row) are walked one by one and their lines listed in reading order (visual-order.ts).
   * False when the children are in order, or mix in text of the container's own.
   */
  private walkInDrawnOrder(el: Element, style: CSSStyleDeclaration, ctx: Ctx): boolean {
    if (this.env.shadowRootOf(el) || el.localName === 'slot') return false;
    const kids = Array.from(el.children);
    if (kids.length < 2 || kids.length > MAX_REORDERED) return false;
    for (let n = el.firstChild; n; n = n.nextSibling)
      if (n.nodeType === 3 && (n as Text).data.trim()) return false;
    const styles = kids.map((k) => this.styles.get(k));
    if (styles.some((s) => s.display === 'contents')) return false;
    const order = (s: CSSStyleDeclaration) => ({
      display: s.display,
      flexDirection: s.flexDirection,
      float: s.getPropertyValue('float'),
      order: s.order,
    });
    if (!drawnOutOfOrder(order(style), styles.map(order))) return false;
    this.flush();
    const saved = this.out;
    const chunks: SnapshotLine[][] = [];
    for (const k of kids) {
      const chunk: SnapshotLine[] = [];
      this.out = chunk;
      if (!this.stopped) this.walkElement(k, ctx);
      this.flush();
      chunks.push(chunk);
    }
    this.out = saved;
    const boxes = kids.map((k) => this.env.boxOf(k));
    for (const i of readingOrder(boxes, style.direction === 'rtl')) this.out.push(...chunks[i]);
    return true;
  }

  private pushText(data: string, ctx: Ctx): void {
    if (!this.buf) this.bufDepth = ctx.depth;
    this.buf += data;
  }

  /** Ends the current text block: one clipped line. */
  private flush(): void {
    const raw = this.buf;
    const prefix = this.bufPrefix;
    this.buf = '';
    this.bufPrefix = '';
    if (!raw) return;
    const text = normalizeSpace(raw);
    if (!text || NOISE.test(text)) return;
    const clipped = clip(text, this.opts.textLimit);
    this.emit({
      depth: this.bufDepth,
      kind: 'text',
      text: prefix + clipped,
      node: { kind: 'text', text: clipped, ...(prefix ? { item: true } : {}) },
    });
  }

  /**
   * Every control line with a name of its own and its element: names that repeat are told apart
   * by their row once the walk is done (distinguishRepeats).
   */
  private readonly named: { line: SnapshotLine; el: Element; key: string }[] = [];

  private noteNamed(line: SnapshotLine, el: Element): void {
    const key = NAMED_LINE.exec(line.text)?.[0];
    if (key) this.named.push({ line, el, key });
  }

  /**
   * Controls that share a role and name (each todo's "Delete", each table row's "Edit") carry
   * the row they sit in — ` (in row "Buy milk")`, marked as derived — so that every line names
   * one element. Controls outside any row keep their line as it is.
   */
  distinguishRepeats(): void {
    const count = new Map<string, number>();
    for (const n of this.named) count.set(n.key, (count.get(n.key) ?? 0) + 1);
    for (const n of this.named) {
      if ((count.get(n.key) ?? 0) < 2) continue;
      const row = rowTextOf(n.el);
      if (!row) continue;
      n.line.text = n.line.text.replace(n.key, `${n.key} (in row ${quote(row)})`);
      if (n.line.node?.kind === 'control') n.line.node = { ...n.line.node, row };
    }
  }

  private emit(line: SnapshotLine): void {
    this.out.push(line);
    // Counted at emit time, so lines a heading re-parents are not counted twice.
    this.chars += line.text.length + line.depth * 2 + 1;
    if (this.chars > this.opts.maxChars) this.stopped = true;
  }

  private control(el: Element, role: string, ctx: Ctx, knownName?: string): void {
    this.flush();
    const line: SnapshotLine = {
      depth: ctx.depth,
      kind: 'control',
      ...this.controlText(el, role, role, el, knownName),
    };
    this.emit(line);
    this.noteNamed(line, el);
  }

  /** `- role "name" [ref=…] [flags]: value` */
  private controlText(
    el: Element,
    role: string,
    stateRole: string,
    refTarget: Element = el,
    knownName?: string,
  ): { text: string; node: OutlineNode } {
    let name = knownName || accessibleName(el, this.styles, undefined, this.labels);
    // Generic clickables have no accname from content (role none): their text is what users see.
    if (!name && role === 'clickable')
      name = clip(normalizeSpace((el as HTMLElement).innerText ?? el.textContent ?? ''), 100);
    const ref = this.opts.refPrefix + this.registry.refFor(refTarget);
    this.refs++;
    const href =
      this.opts.includeUrls && role === 'link' ? (el as HTMLAnchorElement).href : undefined;
    const state = stateOf(el, stateRole);
    return {
      text: controlLine(
        el,
        role,
        name,
        ref,
        state,
        href,
        derivedNameOf(el, role, name, this.styles),
      ),
      node: controlNode(el, role, name, ref, state),
    };
  }

  /** Hover-only controls under this hidden element (hover-only.ts), flagged `[on hover]`. */
  private hoverOnly(el: Element, ctx: Ctx): void {
    for (const { el: c, role } of hoverOnlyControls(el, this.hoverReveal, this.styles)) {
      const own =
        c.getAttribute('aria-label') || shownText(c, this.styles) || c.getAttribute('title');
      const name = clip(normalizeSpace(own ?? ''), 100);
      this.flush();
      const ref = this.opts.refPrefix + this.registry.refFor(c);
      this.refs++;
      const state = stateOf(c, role);
      const flags = [...state.flags, 'on hover'];
      const derived = derivedNameOf(c, role, name, this.styles);
      const text = controlLine(c, role, name, ref, { ...state, flags }, undefined, derived);
      const node = controlNode(c, role, name, ref, { ...state, flags });
      const line: SnapshotLine = { depth: ctx.depth, kind: 'control', text, node };
      this.emit(line);
      this.noteNamed(line, c);
    }
  }

  /**
   * A label's text is its control's name, already on the control's line. CSS-only toggles hide
   * the real checkbox and style its label: then the label stands in for the control (clicking it
   * toggles the control) and shows the control's role and state.
   */
  private label(label: HTMLLabelElement, ctx: Ctx): boolean {
    const control = label.control;
    if (!control) return false;
    if (this.isRendered(control)) {
      // The control's line already carries this text as its name: only controls inside remain.
      this.walkChildren(label, { ...ctx, inControl: true });
      return true;
    }
    const role = roleOf(control);
    // Only toggles are styled through their label; a hidden text input behind a label is a
    // form mirror of a widget drawn elsewhere (a date field's sections), not this label's control.
    if (!role || !TOGGLE_ROLES.has(role)) return false;
    this.flush();
    const name = clip(
      normalizeSpace((label as HTMLElement).innerText ?? label.textContent ?? ''),
      100,
    );
    this.emit({
      depth: ctx.depth,
      kind: 'control',
      ...this.controlText(control, role, role, label, name),
    });
    this.walkChildren(label, { ...ctx, inControl: true });
    return true;
  }

  /**
   * A control hidden and styled through its label ("toggle all"): its label's line stands in for
   * it (see label()), so the control itself is not listed a second time.
   */
  private labelStandsIn(el: Element): boolean {
    if (el.localName !== 'input' || !TOGGLE_ROLES.has(roleOf(el) ?? '')) return false;
    // The label index, not el.labels: Chrome computes that list by walking the whole document.
    const labels = this.labels.labelsOf(el) ?? Array.from((el as HTMLInputElement).labels ?? []);
    if (!labels.length || this.isRendered(el)) return false;
    return labels.some((l) => {
      const style = this.styles.get(l);
      const box = this.env.boxOf(l);
      return style.display !== 'none' && !isInvisible(style) && box.width > 0 && box.height > 0;
    });
  }

  private isRendered(el: Element): boolean {
    const style = this.styles.get(el);
    if (style.display === 'none' || isInvisible(style) || style.opacity === '0') return false;
    const box = this.env.boxOf(el);
    return box.width > 1 && box.height > 1;
  }

  private heading(el: Element, ctx: Ctx): void {
    this.flush();
    const saved = this.out;
    const inner: SnapshotLine[] = [];
    this.out = inner;
    this.walkChildren(el, ctx);
    this.flush();
    this.out = saved;
    // Block children inside a heading flushed separate text lines: they are all the title.
    const text = inner
      .filter((l) => l.kind === 'text')
      .map((l) => l.text)
      .join(' ');
    // Only a heading without text of its own (an image, an aria-label) is named by accname:
    // text the walk dropped as hidden must not come back through the name.
    const title =
      text ||
      (normalizeSpace(el.textContent ?? '')
        ? ''
        : accessibleName(el, this.styles, undefined, this.labels));
    if (title) {
      const level = headingLevel(el);
      const shown = clip(title, this.opts.textLimit);
      this.out.push({
        depth: ctx.depth,
        kind: 'heading',
        text: `${'#'.repeat(level)} ${shown}`,
        node: { kind: 'heading', level, text: shown },
      });
    }
    for (const line of inner) if (line.kind !== 'text') this.out.push(line);
  }

  private section(el: Element, role: string, ctx: Ctx, knownName?: string): void {
    this.flush();
    const name =
      knownName ??
      (role === 'dialog' ||
      role === 'alertdialog' ||
      el.hasAttribute('aria-label') ||
      el.hasAttribute('aria-labelledby')
        ? accessibleName(el, this.styles, 60, this.labels)
        : '');
    const header: SnapshotLine = {
      depth: ctx.depth,
      kind: 'section',
      text: `- ${role}${name ? ` ${quote(name)}` : ''}:`,
      node: { kind: 'section', role, name },
    };
    this.emit(header);
    const before = this.out.length;
    const inner = { ...ctx, depth: ctx.depth + 1 };
    if (!this.walkInDrawnOrder(el, this.styles.get(el), inner)) this.walkChildren(el, inner);
    this.flush();
    // An empty landmark is noise: drop its header.
    if (this.out.length === before) this.out.splice(before - 1, 1);
  }

  /**
   * Controls drawn inside an SVG (issue 26, point 3): a chart's bars and labels that a d3
   * handler serves, SVG links, shapes with a role or tabindex. The SVG stays one picture for
   * reading; only what acts is listed — found the way HTML clickables are (actionableOf: a role,
   * a tabindex, an inline onclick, a pointer cursor starting on it), named by its accessible name,
   * its <title> or its text. `browser_find` already found these; the snapshot dropped them.
   */
  private svgControls(svg: Element, svgStyle: CSSStyleDeclaration, ctx: Ctx): void {
    const pointer = new Map<Element, boolean>([[svg, svgStyle.cursor === 'pointer']]);
    let listed = 0;
    const walk = (parent: Element): void => {
      for (const el of Array.from(parent.children)) {
        if (listed >= MAX_SVG_CONTROLS || this.stopped) return;
        const style = this.styles.get(el);
        if (isInvisible(style) || el.localName === 'title' || el.localName === 'defs') continue;
        const role = roleOf(el);
        const act =
          el.localName === 'a' && (el.hasAttribute('href') || el.hasAttribute('xlink:href'))
            ? { role: 'link', generic: false }
            : actionableOf(el, role, style, pointer.get(parent) ?? false);
        const box = act ? this.env.boxOf(el) : null;
        if (act && box && box.width > 0 && box.height > 0) {
          listed++;
          this.control(el, act.role, ctx);
          continue;
        }
        pointer.set(el, style.cursor === 'pointer');
        walk(el);
      }
    };
    walk(svg);
  }

  private media(el: Element, ctx: Ctx): void {
    if (
      el.localName === 'svg' &&
      !el.hasAttribute('aria-label') &&
      !el.hasAttribute('aria-labelledby')
    ) {
      if (el.getAttribute('role') !== 'img') return;
    }
    const name = accessibleName(el, this.styles, 80, this.labels);
    if (
      !name ||
      (el.localName === 'img' &&
        !el.hasAttribute('alt') &&
        !el.hasAttribute('aria-label') &&
        !el.hasAttribute('title'))
    )
      return;
    this.flush();
    this.emit({
      depth: ctx.depth,
      kind: 'media',
      text: `- img ${quote(name)}`,
      node: { kind: 'media', name },
    });
  }

  private frame(el: HTMLIFrameElement, ctx: Ctx): void {
    this.flush();
    const title = normalizeSpace(el.getAttribute('title') ?? el.getAttribute('name') ?? '');
    let doc: Document | null = null;
    try {
      doc = el.contentDocument;
    } catch {
      doc = null;
    }
    const label = `- iframe${title ? ` ${quote(clip(title, 60))}` : ''}`;
    if (doc && doc.documentElement) {
      const node: OutlineNode = { kind: 'frame', name: title ? clip(title, 60) : '' };
      this.emit({ depth: ctx.depth, kind: 'frame', text: `${label}:`, node });
      const before = this.out.length;
      this.walkDocument(doc, ctx.depth + 1);
      if (this.out.length === before) this.out.pop();
      return;
    }
    let origin = '';
    try {
      origin = new URL(el.src, el.ownerDocument.baseURI).origin;
    } catch {
      origin = '';
    }
    // The page cannot know a frame's extension frameId: the service worker fills the
    // placeholder in by matching this frame's URL and size against the tab's frames.
    const index = this.crossFrames.length;
    const r = el.getBoundingClientRect();
    this.crossFrames.push({
      index,
      src: el.src,
      width: Math.round(el.clientWidth || r.width),
      height: Math.round(el.clientHeight || r.height),
    });
    const where = ` [frameId=#${this.opts.frameNonce}-${index}]`;
    this.emit({
      depth: ctx.depth,
      kind: 'frame',
      text: `${label}${where} (cross-origin${origin ? ` ${origin}` : ''})`,
      node: { kind: 'frame', name: title ? clip(title, 60) : '', crossOrigin: index },
    });
  }
}
