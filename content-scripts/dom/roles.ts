/**
 * ARIA roles as the snapshot needs them: the explicit role when it is a known one, else the
 * implicit HTML-AAM role of the handful of tags that matter for an outline. Kept local (rather
 * than dom-accessibility-api's getRole) because the snapshot also needs input-type hints and
 * the landmark rules for header/footer, and this runs on every element of large pages.
 */

export const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'combobox',
  'textbox',
  'searchbox',
  'slider',
  'spinbutton',
  'treeitem',
]);

/** Landmarks and other containers the outline keeps as nested sections. */
export const SECTION_ROLES = new Set([
  'banner',
  'navigation',
  'main',
  'contentinfo',
  'complementary',
  'search',
  'form',
  'region',
  'dialog',
  'alertdialog',
]);

const KNOWN_ROLES = new Set([
  ...INTERACTIVE_ROLES,
  ...SECTION_ROLES,
  'heading',
  'img',
  'list',
  'listitem',
  'table',
  'row',
  'cell',
  'columnheader',
  'rowheader',
  'grid',
  'gridcell',
  'listbox',
  'menu',
  'menubar',
  'tablist',
  'tabpanel',
  'tree',
  'group',
  'alert',
  'status',
  'progressbar',
  'meter',
  'separator',
  'article',
  'paragraph',
  'presentation',
  'none',
  'generic',
  'toolbar',
  'radiogroup',
  'scrollbar',
  'log',
  'marquee',
  'timer',
  'tooltip',
  'figure',
  'document',
  'application',
  'feed',
  'math',
  'note',
]);

const TEXT_INPUT_TYPES = new Set(['', 'text', 'email', 'tel', 'url', 'password']);

const TAG_ROLES: Record<string, string> = {
  button: 'button',
  textarea: 'textbox',
  option: 'option',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  nav: 'navigation',
  main: 'main',
  aside: 'complementary',
  dialog: 'dialog',
  search: 'search',
  ul: 'list',
  ol: 'list',
  menu: 'list',
  li: 'listitem',
  table: 'table',
  tr: 'row',
  td: 'cell',
  th: 'columnheader',
  details: 'group',
  fieldset: 'group',
  p: 'paragraph',
  hr: 'separator',
  progress: 'progressbar',
  meter: 'meter',
  iframe: 'iframe',
  frame: 'iframe',
  article: 'article',
};

/** The role the element exposes, or null for generic / presentational elements. */
export function roleOf(el: Element): string | null {
  const explicit = el.getAttribute('role');
  if (explicit) {
    for (const token of explicit.trim().toLowerCase().split(/\s+/)) {
      if (!KNOWN_ROLES.has(token)) continue;
      if (token === 'presentation' || token === 'none' || token === 'generic') {
        // Focusable elements keep their native role (ARIA presentational conflict resolution).
        return isNativelyFocusable(el) ? implicitRole(el) : null;
      }
      return token;
    }
  }
  return implicitRole(el);
}

export function implicitRole(el: Element): string | null {
  const tag = el.localName;
  switch (tag) {
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : null;
    case 'input':
      return inputRole(el as HTMLInputElement);
    case 'select': {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    case 'summary':
      return el.parentElement?.localName === 'details' ? 'button' : null;
    case 'img':
      return el.getAttribute('alt') === '' ? null : 'img';
    case 'header':
    case 'footer':
      // Only a landmark when not scoped to a sectioning element (HTML-AAM).
      return el.closest('article, aside, main, nav, section')
        ? null
        : tag === 'header'
          ? 'banner'
          : 'contentinfo';
    case 'form':
    case 'section':
      return el.hasAttribute('aria-label') ||
        el.hasAttribute('aria-labelledby') ||
        el.hasAttribute('title')
        ? tag === 'form'
          ? 'form'
          : 'region'
        : null;
    default:
      if (isContentEditableRoot(el)) return 'textbox';
      return TAG_ROLES[tag] ?? null;
  }
}

function inputRole(input: HTMLInputElement): string | null {
  const type = (input.getAttribute('type') ?? '').toLowerCase();
  if (type === 'hidden') return null;
  if (input.hasAttribute('list') && (TEXT_INPUT_TYPES.has(type) || type === 'search'))
    return 'combobox';
  switch (type) {
    case 'button':
    case 'submit':
    case 'reset':
    case 'image':
    case 'file':
    case 'color':
      return 'button';
    case 'checkbox':
      return input.getAttribute('switch') !== null ? 'switch' : 'checkbox';
    case 'radio':
      return 'radio';
    case 'range':
      return 'slider';
    case 'number':
      return 'spinbutton';
    case 'search':
      return 'searchbox';
    default:
      return 'textbox';
  }
}

/** The `type` worth showing to the model for inputs whose role hides it (password, date, file…). */
export function inputTypeHint(el: Element): string | null {
  if (el.localName === 'button') {
    // Buttons in a form submit it unless typed otherwise: worth knowing before clicking.
    const b = el as HTMLButtonElement;
    return b.type === 'submit' && b.form ? 'submit' : null;
  }
  if (el.localName !== 'input') return null;
  const type = (el.getAttribute('type') ?? '').toLowerCase();
  switch (type) {
    case 'password':
    case 'email':
    case 'tel':
    case 'url':
    case 'date':
    case 'time':
    case 'datetime-local':
    case 'month':
    case 'week':
    case 'file':
    case 'color':
      return type;
    case 'submit':
    case 'reset':
      return type;
    default:
      return null;
  }
}

export function isContentEditableRoot(el: Element): boolean {
  const ce = el.getAttribute('contenteditable');
  if (ce === null || ce.toLowerCase() === 'false') return false;
  const parent = el.parentElement;
  return !parent || !(parent as HTMLElement).isContentEditable;
}

export function isNativelyFocusable(el: Element): boolean {
  switch (el.localName) {
    case 'a':
    case 'area':
      return el.hasAttribute('href');
    case 'button':
    case 'select':
    case 'textarea':
      return true;
    case 'input':
      return (el.getAttribute('type') ?? '').toLowerCase() !== 'hidden';
    case 'summary':
      return el.parentElement?.localName === 'details';
    default:
      return false;
  }
}

export function headingLevel(el: Element): number {
  const aria = Number(el.getAttribute('aria-level'));
  if (Number.isInteger(aria) && aria >= 1 && aria <= 9) return Math.min(aria, 6);
  const m = /^h([1-6])$/.exec(el.localName);
  return m ? Number(m[1]) : 2;
}
