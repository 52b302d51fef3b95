/**
 * Which elements the model can act on, and under which role it sees them. Native controls and
 * ARIA widgets are obvious; framework "div buttons" are found by what makes them clickable for
 * a user: an inline onclick, a tabindex, or the pointer cursor starting on them.
 */
import {
  implicitRole,
  INTERACTIVE_ROLES,
  isContentEditableRoot,
  isNativelyFocusable,
  SECTION_ROLES,
} from './roles';

/** Roles that are structure, even when focusable or under a pointer cursor. */
const STRUCTURAL_ROLES = new Set([
  ...SECTION_ROLES,
  'tabpanel',
  'list',
  'listbox',
  'menu',
  'menubar',
  'tablist',
  'tree',
  'grid',
  'table',
  'document',
  'application',
  'feed',
  'group',
  'radiogroup',
  'toolbar',
  'heading',
  'article',
  'iframe',
]);

/**
 * Candidates for a control of its own inside another: natives, ARIA widgets, focusable elements
 * and declared handlers (a prefilter: `isOwnControl` decides).
 */
const INNER_CONTROL = [
  'a[href]',
  'button',
  'input:not([type=hidden])',
  'select',
  'textarea',
  '[contenteditable]',
  '[tabindex]:not([tabindex^="-"])',
  '[onclick]',
  '[jsaction]',
  '[data-handler]',
  '[data-action]',
  '[ng-click]',
  '[data-ng-click]',
  '[x-on\\:click]',
  '[\\@click]',
  '[v-on\\:click]',
  '[wire\\:click]',
  '[hx-get]',
  '[hx-post]',
  ...[...INTERACTIVE_ROLES].map((r) => `[role=${r}]`),
].join(',');

export interface Actionable {
  role: string;
  /** A generic clickable found by heuristics (shown as role `clickable`). */
  generic: boolean;
  /**
   * A generic clickable that holds controls of its own (a tree folder's row with its items, a
   * toolbar with a handler): named by its own text, and its controls are listed, not swallowed.
   */
  wrapper?: boolean;
}

/**
 * A click handler declared in the markup and served by a listener the page delegates from an
 * ancestor: jQuery UI's `data-handler`/`data-event` (a datepicker's Prev/Next are <a> without
 * href), Google's `jsaction`, AngularJS `ng-click`, Alpine `x-on:click`/`@click`, Vue templates
 * left in the DOM, Livewire `wire:click`, htmx requests, Stimulus and plain `data-action`.
 * A handler for another event (`jsaction="mouseover:…"`, `data-event="change"`) does not count.
 */
export function declaresHandler(el: Element): boolean {
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const { name, value } = attrs[i];
    switch (name) {
      case 'onclick':
      case 'ng-click':
      case 'data-ng-click':
      case 'x-on:click':
      case '@click':
      case 'v-on:click':
      case 'wire:click':
        return true;
      case 'jsaction':
        // `click:ns.fn; mouseover:…`, or a bare `ns.fn` (jsaction's default event is click).
        if (
          value.split(';').some((a) => {
            const t = a.trim();
            return t !== '' && (!t.includes(':') || /^click\w*:/.test(t));
          })
        )
          return true;
        break;
      case 'data-handler': {
        const event = el.getAttribute('data-event');
        if (event === null || /\bclick\b/.test(event)) return true;
        break;
      }
      case 'data-action':
        // Stimulus names its event (`click->list#add`); a bare action is a delegated click.
        if (!value.includes('->') || /\bclick->/.test(value)) return true;
        break;
      case 'hx-get':
      case 'hx-post': {
        const trigger = el.getAttribute('hx-trigger');
        if (trigger === null || /\bclick\b/.test(trigger)) return true;
        break;
      }
    }
  }
  return false;
}

/** `el` is a control by a signal of its own (not by a cursor it may inherit). */
function isOwnControl(el: Element): boolean {
  if (isNativelyFocusable(el) || isContentEditableRoot(el)) return true;
  const role = el.getAttribute('role');
  if (role !== null && INTERACTIVE_ROLES.has(role)) return true;
  const tabindex = el.getAttribute('tabindex');
  if (tabindex !== null && Number(tabindex) >= 0) return true;
  return declaresHandler(el);
}

/** The controls of their own inside `el` (none: it is one control). */
export function innerControls(el: Element): Element[] {
  return Array.from(el.querySelectorAll(INNER_CONTROL)).filter(isOwnControl);
}

export function actionableOf(
  el: Element,
  role: string | null,
  style: CSSStyleDeclaration,
  parentCursorPointer: boolean,
  insideControl = false,
): Actionable | null {
  if (role !== null && INTERACTIVE_ROLES.has(role)) return { role, generic: false };
  if (role === 'textbox' || isContentEditableRoot(el)) return { role: 'textbox', generic: false };
  // Native controls stay actionable whatever role a page gives them (`<a href role=menu>`).
  if (isNativelyFocusable(el)) return { role: implicitRole(el) ?? 'clickable', generic: false };
  if (role !== null && STRUCTURAL_ROLES.has(role)) return null;
  const tag = el.localName;
  if (tag === 'html' || tag === 'body' || tag === 'label' || tag === 'option') return null;
  // Inside a control, spans under its pointer cursor are part of it, not targets of their own.
  if (insideControl) return null;

  const tabindex = el.getAttribute('tabindex');
  const focusable = tabindex !== null && Number(tabindex) >= 0;
  const handler = declaresHandler(el);
  const pointerStart = style.cursor === 'pointer' && !parentCursorPointer;
  if (!focusable && !handler && !pointerStart) return null;
  if (innerControls(el).length === 0) return { role: 'clickable', generic: true };
  // A wrapper around controls is not itself the target: its children carry the refs. One with a
  // handler of its own (a folder row that toggles) is listed too, by its own text (walker.ts).
  return handler ? { role: 'clickable', generic: true, wrapper: true } : null;
}
