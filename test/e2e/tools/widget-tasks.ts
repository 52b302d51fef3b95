/**
 * The widget matrix (issue 14): one task per widget from a real npm package, each done by a
 * scripted model that reads tool results generically — roles, names, values, visible text —
 * with no per-widget code path: the plans below are per *kind of task* (pick in a searchable
 * select, pick in a popup select, pick a date, reorder, reach a row), shared by every widget of
 * that kind. `check` asserts the app's own state (window.widgetState).
 */
import { call, type Conversation, type Step } from './support';

export interface WidgetTask {
  widget: string;
  /** The npm package(s) it is built from. */
  packages: string;
  task: string;
  /** Page under test/fixtures/widgets. */
  path: string;
  /** The level the task is documented to pass at (docs/tools.md). */
  level: 'L1' | 'L2';
  plan(): Step[];
  /** The app's state after the task is the expected one. */
  done(state: Record<string, unknown>): boolean;
}

/** Type to filter a searchable select, then pick the option. */
function searchableSelect(label: string, option: string): Step[] {
  return [
    call('browser_snapshot'),
    (c) => call('browser_type', { ref: c.ref(new RegExp(`combobox "${label}"`)), text: option }),
    call('browser_snapshot'),
    (c) => call('browser_click', { ref: c.ref(new RegExp(`option "${option}"`)) }),
  ];
}

/** Open a select's popup (a combobox, or a button that has a popup), then pick the option. */
function popupSelect(label: string, option: string): Step[] {
  return [
    call('browser_snapshot'),
    (c) =>
      call('browser_click', {
        ref: c.ref(new RegExp(`combobox "${label}"|button "${label}".*\\[haspopup\\]`)),
      }),
    call('browser_snapshot'),
    (c) => call('browser_click', { ref: c.ref(new RegExp(`option "${option}"`)) }),
  ];
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Choose a date in a date picker, reading which kind it is from the snapshot: a sectioned field
 * (spinbuttons "Month", "Day", "Year") is typed into section by section; otherwise the calendar
 * popup opens from its field, its month and year are set with the calendar's own controls, and
 * the day is clicked by its accessible name ("March 14, 2027", as calendars label days).
 */
function calendarDate(label: string, iso: string): Step[] {
  const [y, m, d] = iso.split('-').map(Number);
  const month = MONTHS[m - 1];
  let sectioned = false;
  const pad = (n: number) => String(n).padStart(2, '0');
  const either =
    (typed: Step, calendar: Step): Step =>
    (c) => {
      const step = sectioned ? typed : calendar;
      return typeof step === 'function' ? step(c) : step;
    };
  return [
    call('browser_snapshot'),
    (c) => {
      sectioned = /spinbutton "Month"/.test(c.last()) && /spinbutton "Day"/.test(c.last());
      return sectioned
        ? call('browser_type', { ref: c.ref(/spinbutton "Month"/), text: pad(m) })
        : call('browser_click', { ref: c.ref(new RegExp(`textbox "${label}"`)) });
    },
    either(
      (c) => call('browser_type', { ref: c.ref(/spinbutton "Day"/), text: pad(d) }),
      call('browser_snapshot'),
    ),
    either(
      (c) => call('browser_type', { ref: c.ref(/spinbutton "Year"/), text: String(y) }),
      (c) => call('browser_select', { ref: c.ref(/combobox "Month"/), values: [month] }),
    ),
    either(call('browser_snapshot'), (c) =>
      call('browser_type', { ref: c.ref(/spinbutton "Year"/), text: String(y), clear: true }),
    ),
    call('browser_snapshot'),
    either(call('browser_snapshot'), (c) =>
      call('browser_click', { ref: c.ref(new RegExp(`"${month} ${d}, ${y}"`)) }),
    ),
  ];
}

/**
 * Drag an item of a list onto the first, with trusted input (native drag and drop): list items
 * are not controls, so their refs come from finding their text.
 */
function reorderToTop(item: string, first: string): Step[] {
  return [
    call('browser_snapshot'),
    call('browser_find', { query: item }),
    call('browser_find', { query: first }),
    (c) => {
      const [a, b] = c
        .toolTexts()
        .slice(-2)
        .map((t) => /\[ref=(\w+)\]/.exec(t)?.[1]);
      return call('browser_mouse', { action: 'drag', ref: a ?? '', toRef: b ?? '', dropAt: 'top' });
    },
  ];
}

/**
 * Reach row `n` of a virtualized list: read the row numbers the snapshot shows, scroll toward
 * `n` by an estimate (calibrated by how far the previous scroll moved the rows), look again;
 * then find the row. A careful reader's loop, bounded to a few rounds.
 */
function reachRow(prefix: string, n: number): Step[] {
  let rowsPerScreen = 0;
  let previous: { centre: number; amount: number } | null = null;
  const adjust = (c: Conversation) => {
    const rows = [...c.last().matchAll(new RegExp(`${prefix} (\\d+)`, 'g'))].map((m) =>
      Number(m[1]),
    );
    if (!rows.length) return call('browser_snapshot');
    const lo = Math.min(...rows);
    const hi = Math.max(...rows);
    const centre = (lo + hi) / 2;
    if (previous && centre !== previous.centre)
      rowsPerScreen = Math.abs(centre - previous.centre) / previous.amount;
    if (!rowsPerScreen) rowsPerScreen = hi - lo + 1;
    if (n >= lo + 1 && n <= hi - 1) return call('browser_snapshot');
    const amount = Math.min(
      20,
      Math.max(0.1, Math.round((Math.abs(n - centre) / rowsPerScreen) * 10) / 10),
    );
    previous = { centre, amount };
    return call('browser_scroll', { direction: n > centre ? 'down' : 'up', amount });
  };
  return [
    call('browser_snapshot'),
    ...Array.from({ length: 4 }, () => [adjust, call('browser_snapshot')] as Step[]).flat(),
    call('browser_find', { query: `${prefix} ${n}` }),
  ];
}

/**
 * Make a word bold in a rich-text editor: find the word, focus the editor (the textbox that holds
 * it), then with real keys move the caret to the word — counting characters in the text the model
 * read — select it, then press the bold shortcut. Synthetic keys move no caret, hence L2.
 */
function boldWord(word: string): Step[] {
  return [
    call('browser_find', { query: word }),
    (c) => {
      const line =
        c
          .last()
          .split('\n')
          .find((l) => l.includes(`[ref=`) && l.toLowerCase().includes(word.toLowerCase())) ?? '';
      const ref = /\[ref=(\w+)\]/.exec(line)?.[1] ?? '';
      const text = /text "([^"]*)"/.exec(line)?.[1] ?? '';
      const at = text.indexOf(word);
      const keys = [
        'Control+Home',
        ...Array(Math.max(0, at)).fill('ArrowRight'),
        ...Array(word.length).fill('Shift+ArrowRight'),
      ];
      return call('browser_keyboard', { ref, keys });
    },
    // Then the shortcut, once the editor has taken the selection in (it learns of it from
    // selectionchange, a task after the keys).
    call('browser_keyboard', { keys: ['Control+b'] }),
  ];
}

/**
 * Edit a grid cell: find the cell by its current value, double-click it to edit, and type the
 * new value into the editor that appears (the focused textbox or spinbutton holding the old value).
 */
function editCell(current: string, next: string): Step[] {
  return [
    call('browser_find', { query: current }),
    (c) => call('browser_click', { ref: c.ref(new RegExp(`"${current}"`)), doubleClick: true }),
    call('browser_snapshot'),
    (c) =>
      call('browser_type', {
        ref: c.ref(new RegExp(`(textbox|spinbutton)\\b.*: ${current}$`)),
        text: next,
        clear: true,
        submit: true,
      }),
  ];
}

/** Replace the text of an editor: the textbox named `label`, cleared and typed into. */
function replaceText(label: string, text: string): Step[] {
  return [
    call('browser_snapshot'),
    (c) =>
      call('browser_type', { ref: c.ref(new RegExp(`textbox "${label}"`)), text, clear: true }),
  ];
}

const picked = (v: string) => (s: Record<string, unknown>) => s.value === v;
/** Exactly `word` is bold in the editor's own model. */
const boldOnly = (word: string) => (s: Record<string, unknown>) => {
  const words = (s.words ?? []) as { word: string; bold: boolean }[];
  return words.length > 3 && words.every((w) => w.bold === (w.word === word));
};

export const WIDGET_TASKS: WidgetTask[] = [
  {
    widget: 'react-select',
    packages: 'react-select 5.10.2',
    task: 'pick "Canada" in a searchable select',
    path: 'widget.html?w=react-select',
    level: 'L1',
    plan: () => searchableSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'MUI Autocomplete',
    packages: '@mui/material 9.5.0',
    task: 'pick "Canada" in a searchable select',
    path: 'widget.html?w=mui-autocomplete',
    level: 'L1',
    plan: () => searchableSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'MUI Select',
    packages: '@mui/material 9.5.0',
    task: 'pick "Canada" in a popup select',
    path: 'widget.html?w=mui-select',
    level: 'L1',
    plan: () => popupSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'Headless UI Combobox',
    packages: '@headlessui/react 2.2.10',
    task: 'pick "Canada" in a searchable select',
    path: 'widget.html?w=headless-combobox',
    level: 'L1',
    plan: () => searchableSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'Headless UI Listbox',
    packages: '@headlessui/react 2.2.10',
    task: 'pick "Canada" in a popup select',
    path: 'widget.html?w=headless-listbox',
    level: 'L1',
    plan: () => popupSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'Radix Select',
    packages: '@radix-ui/react-select 2.4.1',
    task: 'pick "Canada" in a popup select',
    path: 'widget.html?w=radix-select',
    level: 'L1',
    plan: () => popupSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'Shoelace sl-select',
    packages: '@shoelace-style/shoelace 2.20.1',
    task: 'pick "Canada" in a popup select',
    path: 'widget.html?w=shoelace-select',
    level: 'L1',
    plan: () => popupSelect('Country', 'Canada'),
    done: picked('Canada'),
  },
  {
    widget: 'flatpickr',
    packages: 'flatpickr 4.6.13',
    task: 'choose 2027-03-14 in a date picker',
    path: 'widget.html?w=flatpickr',
    level: 'L1',
    plan: () => calendarDate('Delivery date', '2027-03-14'),
    done: picked('2027-03-14'),
  },
  {
    widget: 'MUI X DatePicker',
    packages: '@mui/x-date-pickers 9.17.0, dayjs 1.11.23',
    task: 'choose 2027-03-14 in a date picker',
    path: 'widget.html?w=mui-date',
    level: 'L1',
    plan: () => calendarDate('Delivery date', '2027-03-14'),
    done: picked('2027-03-14'),
  },
  {
    widget: 'SortableJS',
    packages: 'sortablejs 1.15.7',
    task: 'move item 3 to the top',
    path: 'widget.html?w=sortable',
    level: 'L2',
    plan: () => reorderToTop('Charlie', 'Alpha'),
    done: (s) => Array.isArray(s.order) && s.order[0] === 'Charlie',
  },
  {
    widget: 'Quill',
    packages: 'quill 2.0.3',
    task: 'make a word bold in an editor',
    path: 'widget.html?w=quill',
    level: 'L2',
    plan: () => boldWord('brown'),
    done: boldOnly('brown'),
  },
  {
    widget: 'Tiptap (ProseMirror)',
    packages: '@tiptap/core 3.34.0, @tiptap/starter-kit 3.34.0',
    task: 'make a word bold in an editor',
    path: 'widget.html?w=tiptap',
    level: 'L2',
    plan: () => boldWord('brown'),
    done: boldOnly('brown'),
  },
  {
    widget: 'Lexical',
    packages: 'lexical 0.52.0, @lexical/rich-text 0.52.0',
    task: 'make a word bold in an editor',
    path: 'widget.html?w=lexical',
    level: 'L2',
    plan: () => boldWord('brown'),
    done: boldOnly('brown'),
  },
  {
    widget: 'AG Grid',
    packages: 'ag-grid-community 36.2.0',
    task: 'edit a grid cell',
    path: 'widget.html?w=ag-grid',
    level: 'L1',
    plan: () => editCell('9.99', '42'),
    done: (s) =>
      JSON.stringify((s.rows as { price: number }[] | undefined)?.map((r) => r.price)) ===
      '[12.5,42,30]',
  },
  {
    widget: 'CodeMirror 6',
    packages: '@codemirror/view 6.43.15, @codemirror/state 6.7.6',
    task: 'replace the code in a code editor',
    path: 'widget.html?w=codemirror',
    level: 'L1',
    plan: () => replaceText('Code', 'print(42)'),
    done: (s) => s.doc === 'print(42)',
  },
  {
    widget: 'react-window List',
    packages: 'react-window 2.5.3',
    task: 'reach row 500 of a virtualized list',
    path: 'widget.html?w=react-window',
    level: 'L1',
    plan: () => reachRow('Row', 500),
    done: (s) => Number(s.first) <= 500 && Number(s.last) >= 500,
  },
];
