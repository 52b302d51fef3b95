/**
 * The todo task every framework app gets, as a scripted model that reads the tool results
 * generically — by role, name, value and state, never by framework or CSS class:
 *   - find an item's text and double-click it to edit, type the new title into the textbox that
 *     now holds the old one, Enter saves;
 *   - add an item through the "What needs to be done?" box, tick the checkbox of a row;
 *   - start editing another item, type, Escape cancels;
 *   - edit a third, type, and leave the field by clicking the "Active" filter link (the edit is
 *     saved on blur; the route shows the active items only);
 *   - delete a row with its own button (TodoMVC shows it only while the row is hovered);
 *   - "Clear completed".
 */
import { call, type Conversation, type Step } from './support';

/** The TodoMVC builds under test/fixtures/widgets/src/todo (frameworks.test.ts runs each). */
export const TODO_FRAMEWORKS = [
  'react',
  'preact',
  'vue',
  'svelte',
  'lit',
  'vanilla',
  'jquery',
  'backbone',
  'knockout',
  'alpine',
  'mithril',
  'solid',
  'stimulus',
  'angularjs',
  'angular',
  'webcomponents',
];

export const TODO_GOAL =
  'rename "Buy milk" to "Buy oat milk", add "Feed the cat", tick off "Walk the dog", rename ' +
  '"Feed the cat" to "Feed the cats", show the active items, delete "Buy oat milk", clear completed';

/** The app's items at the end. */
export const TODO_EXPECTED = [{ title: 'Feed the cats', done: false }];
/** The app's route at the end. */
export const TODO_FILTER = 'active';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The textbox of an item being edited: its value is the item's title. */
const editBox = (title: string) => new RegExp(`textbox\\b.*\\[ref=\\w+\\].*: ${escape(title)}$`);

/**
 * The ref of the first `role` control in the row whose text is `row`, from the newest snapshot.
 * The outline is flat: a row is its text line and the control lines around it, up to the next
 * line of plain text (the next row) — so the search runs from the row's text to that line.
 * Named by the page or derived from the row, either way.
 */
export function refInRow(c: Conversation, row: string, role: string): string {
  const lines = c.last().split('\n');
  const plain = (l: string) => !l.includes('[ref=');
  const start = lines.findIndex((l) => plain(l) && l.replace(/^\s*(- )?/, '') === row);
  if (start < 0) throw new Error(`no row "${row}" in:\n${c.last()}`);
  const control = new RegExp(`^\\s*- ${role}\\b.*\\[ref=((?:f\\d+)?e\\d+)\\]`);
  for (const line of lines.slice(start + 1)) {
    if (plain(line)) break;
    const m = control.exec(line);
    if (m) return m[1];
  }
  throw new Error(`no ${role} in row "${row}" in:\n${c.last()}`);
}

/** Double-click an item's text (found by browser_find) and snapshot the edit box it opens. */
function startEditing(title: string): Step[] {
  return [
    call('browser_find', { query: title }),
    (c) =>
      call('browser_click', {
        ref: c.ref(new RegExp(`^- text "${escape(title)}"`)),
        doubleClick: true,
      }),
    call('browser_snapshot'),
  ];
}

export function todoPlan(): Step[] {
  return [
    ...startEditing('Buy milk'),
    (c) =>
      call('browser_type', {
        ref: c.ref(editBox('Buy milk')),
        text: 'Buy oat milk',
        clear: true,
        submit: true,
      }),
    call('browser_snapshot'),
    (c) =>
      call('browser_type', {
        ref: c.ref(/textbox "What needs to be done\?"/),
        text: 'Feed the cat',
        submit: true,
      }),
    call('browser_snapshot'),
    // The row's checkbox: named by the page, or (unlabelled) by its row.
    (c) => call('browser_click', { ref: c.ref(/- checkbox .*"Walk the dog"/) }),
    // Escape cancels an edit.
    ...startEditing('Walk the dog'),
    (c) =>
      call('browser_type', {
        ref: c.ref(editBox('Walk the dog')),
        text: 'Walk the cat',
        clear: true,
      }),
    call('browser_press_key', { key: 'Escape' }),
    // Leaving the field saves the edit: the click on the filter link moves focus away.
    ...startEditing('Feed the cat'),
    (c) =>
      call('browser_type', {
        ref: c.ref(editBox('Feed the cat')),
        text: 'Feed the cats',
        clear: true,
      }),
    (c) => call('browser_click', { ref: c.ref(/- link "Active"/) }),
    call('browser_snapshot'),
    (c) => call('browser_click', { ref: refInRow(c, 'Buy oat milk', 'button') }),
    call('browser_snapshot'),
    (c) => call('browser_click', { ref: c.ref(/- button "Clear completed"/) }),
    call('browser_snapshot'),
  ];
}
