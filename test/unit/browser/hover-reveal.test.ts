/**
 * Hover-only controls (content-scripts/dom/hover-reveal.ts): which hidden elements a page's
 * `:hover` rules would show, read from its style rules, and the selector as it reads with the
 * pointer over the row.
 */
// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { ChangeTracker } from '../../../content-scripts/actions/change-tracker';
import {
  emulateHover,
  HOVER_ATTR,
  HoverRevealIndex,
  hoverRules,
  withoutHover,
} from '../../../content-scripts/dom/hover-reveal';

describe('withoutHover', () => {
  it('drops :hover from a compound and stands in * where :hover was the whole compound', () => {
    expect(withoutHover('.todo-list li:hover .destroy')).toBe('.todo-list li .destroy');
    expect(withoutHover(':hover > .menu')).toBe('* > .menu');
    expect(withoutHover('tr:hover td .act, .x')).toBe('tr td .act, .x');
    expect(withoutHover(':host(:hover) .destroy')).toBe(':host(*) .destroy');
    expect(withoutHover('a:hover:focus-visible')).toBe('a:focus-visible');
  });
});

describe('HoverRevealIndex', () => {
  function page(css: string, html: string): Document {
    document.head.innerHTML = `<style>${css}</style>`;
    document.body.innerHTML = html;
    return document;
  }

  it('finds a control a :hover rule shows, and not one it only recolours or keeps hidden', () => {
    const doc = page(
      `li .destroy { display: none } li:hover .destroy { display: block }
       li .edit { display: none } li:hover .edit { color: red }
       .menu { display: none } nav:hover .menu { display: none }`,
      `<ul><li><button class="destroy"></button><button class="edit">Edit</button></li></ul>
       <nav><a class="menu" href="#">Menu</a></nav><button class="destroy" id="outside"></button>`,
    );
    expect(hoverRules(doc).length).toBe(3);
    const index = new HoverRevealIndex();
    expect(index.revealedOnHover(doc.querySelector('li .destroy')!)).toBe(true);
    expect(index.revealedOnHover(doc.querySelector('.edit')!)).toBe(false);
    expect(index.revealedOnHover(doc.querySelector('.menu')!)).toBe(false);
    // The rule needs the row: a destroy button outside any li is not shown by it.
    expect(index.revealedOnHover(doc.getElementById('outside')!)).toBe(false);
  });

  // (`:host(:hover)` rules are checked in Chromium: frameworks.test.ts, plain custom elements.)
  it('reads the rules of the element’s own shadow root, not the document’s', () => {
    page('li:hover .doc-only { display: block }', '<div id="host"></div>');
    const root = document.getElementById('host')!.attachShadow({ mode: 'open' });
    // Adopted, as Lit's styles are (happy-dom has no styleSheets on a shadow root).
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('.act, .doc-only { display: none } li:hover .act { display: inline-block }');
    root.adoptedStyleSheets = [sheet];
    root.innerHTML =
      '<ul><li><button class="act">Pin</button><button class="doc-only">Doc</button></li></ul>';
    const index = new HoverRevealIndex();
    expect(index.revealedOnHover(root.querySelector('.act')!)).toBe(true);
    expect(index.revealedOnHover(root.querySelector('.doc-only')!)).toBe(false);
  });
});

describe('emulateHover', () => {
  it('applies the hover rules to the chain for one action and leaves nothing behind, unseen as a page change', async () => {
    document.head.innerHTML =
      '<style>li .x { display: none } li:hover .x { display: block }</style>';
    document.body.innerHTML = '<ul><li id="row"><button class="x">Delete</button></li></ul>';
    const button = document.querySelector('.x')!;
    const tracker = new ChangeTracker(document, () => performance.now(), new Set());
    const hover = emulateHover(button);
    expect(document.getElementById('row')!.hasAttribute(HOVER_ATTR)).toBe(true);
    expect(document.adoptedStyleSheets).toHaveLength(1);
    const twin = document.adoptedStyleSheets[0].cssRules[0] as CSSStyleRule;
    expect(twin.selectorText).toBe(`li[${HOVER_ATTR}] .x`);
    hover.restore();
    expect(document.querySelectorAll(`[${HOVER_ATTR}]`)).toHaveLength(0);
    expect(document.adoptedStyleSheets).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 0));
    expect(tracker.mutations).toBe(0);
    tracker.stop();
  });

  it('does nothing where no scope has a hover rule', () => {
    document.head.innerHTML = '';
    document.body.innerHTML = '<button>Go</button>';
    emulateHover(document.querySelector('button')!).restore();
    expect(document.querySelectorAll(`[${HOVER_ATTR}]`)).toHaveLength(0);
    expect(document.adoptedStyleSheets).toHaveLength(0);
  });
});
