/**
 * The peer benchmark's tasks: the TodoMVC builds, the select / editor / grid widgets of the widget
 * matrix (test/fixtures/widgets, bundled from their npm packages) and the demo shop
 * (scripts/demo/shop). Each is a goal (what a user would type), the intents the careful model
 * pursues (policy.ts), and a check on the app's own state — never on what an agent reported.
 */
import type { CartState } from '../../demo/shop/server';
import { TODO_FRAMEWORKS } from '../../../test/e2e/tools/todo-task';
import type { Intent } from './policy';

export interface PeerTask {
  id: string;
  app: string;
  /** Which server the page is on. */
  site: 'widgets' | 'shop';
  path: string;
  goal: string;
  intents: Intent[];
  /** A page expression for the app's own state (JSON-serializable); truthy once the app is up. */
  state: string;
  /** The task is done, judged by the app's state (and the shop's cart on its server). */
  done(state: unknown, cart: () => CartState): boolean;
}

const read: Intent = { do: 'read' };

const todoIntents: Intent[] = [
  read,
  { do: 'click', target: { text: 'Buy milk' }, double: true },
  { do: 'type', target: { role: 'textbox', text: 'Buy milk' }, text: 'Buy oat milk', submit: true },
  {
    do: 'type',
    target: { role: 'textbox', name: 'What needs to be done?' },
    text: 'Feed the cat',
    submit: true,
  },
  { do: 'click', target: { role: 'checkbox', row: 'Walk the dog' } },
  { do: 'click', target: { role: 'link', name: 'Active' } },
  { do: 'click', target: { role: 'button', row: 'Buy oat milk' } },
  { do: 'click', target: { role: 'button', name: 'Clear completed' } },
  read,
];

interface TodoState {
  items: { title: string; done: boolean }[];
  filter: string;
}

const todoTasks: PeerTask[] = TODO_FRAMEWORKS.map((fw) => ({
  id: `todo-${fw}`,
  app: `TodoMVC (${fw})`,
  site: 'widgets',
  path: `todo.html?fw=${fw}`,
  goal:
    'rename "Buy milk" to "Buy oat milk", add "Feed the cat", tick off "Walk the dog", show the ' +
    'active items, delete "Buy oat milk", clear completed',
  intents: todoIntents,
  state: 'window.todoState',
  done(state) {
    const s = state as TodoState;
    return (
      JSON.stringify(s.items) === JSON.stringify([{ title: 'Feed the cat', done: false }]) &&
      s.filter === 'active'
    );
  },
}));

function widgetTask(
  w: string,
  app: string,
  goal: string,
  intents: Intent[],
  done: (s: Record<string, unknown>) => boolean,
): PeerTask {
  return {
    id: w,
    app,
    site: 'widgets',
    path: `widget.html?w=${w}`,
    goal,
    intents,
    state: 'window.widgetState',
    done: (s) => done(s as Record<string, unknown>),
  };
}

const canada = (s: Record<string, unknown>) => s.value === 'Canada';
const searchable: Intent[] = [
  read,
  { do: 'type', target: { role: 'combobox', name: 'Country' }, text: 'Canada' },
  { do: 'click', target: { role: 'option', name: 'Canada' } },
  read,
];
const popup: Intent[] = [
  read,
  {
    do: 'click',
    target: [
      { role: 'combobox', name: 'Country' },
      { role: 'button', name: 'Country' },
    ],
  },
  { do: 'click', target: { role: 'option', name: 'Canada' } },
  read,
];

const widgetTasks: PeerTask[] = [
  widgetTask('react-select', 'react-select', 'pick "Canada" as the country', searchable, canada),
  widgetTask(
    'mui-autocomplete',
    'MUI Autocomplete',
    'pick "Canada" as the country',
    searchable,
    canada,
  ),
  widgetTask(
    'headless-combobox',
    'Headless UI Combobox',
    'pick "Canada" as the country',
    searchable,
    canada,
  ),
  widgetTask('mui-select', 'MUI Select', 'pick "Canada" as the country', popup, canada),
  widgetTask(
    'headless-listbox',
    'Headless UI Listbox',
    'pick "Canada" as the country',
    popup,
    canada,
  ),
  widgetTask('radix-select', 'Radix Select', 'pick "Canada" as the country', popup, canada),
  widgetTask(
    'shoelace-select',
    'Shoelace sl-select',
    'pick "Canada" as the country',
    popup,
    canada,
  ),
  widgetTask(
    'codemirror',
    'CodeMirror 6',
    'replace the code with print(42)',
    [read, { do: 'type', target: { role: 'textbox', name: 'Code' }, text: 'print(42)' }, read],
    (s) => s.doc === 'print(42)',
  ),
  widgetTask(
    'ag-grid',
    'AG Grid',
    'change the price 9.99 to 42',
    [
      read,
      { do: 'click', target: { text: '9.99' }, double: true },
      {
        do: 'type',
        target: [
          { role: 'textbox', text: '9.99' },
          { role: 'spinbutton', text: '9.99' },
        ],
        text: '42',
        submit: true,
      },
      read,
    ],
    (s) =>
      JSON.stringify((s.rows as { price: number }[] | undefined)?.map((r) => r.price)) ===
      '[12.5,42,30]',
  ),
];

const PRODUCT = 'Linkwire Braided USB-C Cable, 0.5 m';

const shopTask: PeerTask = {
  id: 'shop',
  app: 'demo shop',
  site: 'shop',
  path: '',
  goal: `search the shop for "USB-C cable" and add 2 of "${PRODUCT}" to the cart`,
  intents: [
    read,
    {
      do: 'type',
      target: [
        { role: 'searchbox', name: 'Search products' },
        { role: 'textbox', name: 'Search products' },
      ],
      text: 'USB-C cable',
      submit: true,
    },
    { do: 'click', target: { role: 'link', name: PRODUCT } },
    { do: 'type', target: { role: 'spinbutton', name: 'Quantity' }, text: '2' },
    { do: 'click', target: { role: 'button', name: 'Add to cart' } },
    read,
  ],
  state: 'document.readyState === "complete" && document.title',
  done(_state, cart) {
    const c = cart();
    return c.count === 2 && c.items.length === 1 && c.items[0].name === PRODUCT;
  },
};

export const PEER_TASKS: PeerTask[] = [...todoTasks, ...widgetTasks, shopTask];
