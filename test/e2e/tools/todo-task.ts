/**
 * The todo task every framework app gets, as a scripted model that reads the tool results
 * generically — by role, name, value and state, never by framework or CSS class: find the item's
 * text and double-click it to edit, type the new title into the textbox that now holds the old
 * one, add an item through the "What needs to be done?" box, and tick the checkbox of a row.
 */
import { call, type Step } from './support';

export const TODO_GOAL =
  'rename "Buy milk" to "Buy oat milk", add "Feed the cat", and tick off "Walk the dog"';

export const TODO_EXPECTED = [
  { title: 'Buy oat milk', done: false },
  { title: 'Walk the dog', done: true },
  { title: 'Feed the cat', done: false },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function todoPlan(): Step[] {
  return [
    call('browser_find', { query: 'Buy milk' }),
    (c) => call('browser_click', { ref: c.ref(/^- text "Buy milk"/), doubleClick: true }),
    call('browser_snapshot'),
    // Editing shows a textbox whose value is the item's title.
    (c) =>
      call('browser_type', {
        ref: c.ref(new RegExp(`textbox\\b.*\\[ref=\\w+\\].*: ${escape('Buy milk')}$`)),
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
  ];
}
