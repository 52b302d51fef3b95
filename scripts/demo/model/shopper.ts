/**
 * The built-in demo model's policy. It is not a language model: it reads the conversation it is
 * sent (the task, then each tool call and its result), works out where it is from the latest
 * snapshot, and picks the next tool call. Everything it acts on comes from the real page through
 * the real browser tools: refs, names, prices and values are parsed out of snapshot lines
 * (`- link "…" [ref=e7]`), never known in advance.
 *
 * Task it understands: "find the cheapest <product> under $<max> and add <n> to the cart".
 */
import { exchangesOf, taskOf, type ChatMessage, type ToolExchange } from './conversation';
import {
  findElement,
  listings,
  readSnapshot,
  valueOf,
  type Listing,
  type PageView,
} from './snapshot-reader';

export interface NextMove {
  /** Shown to the user before the tool call (or as the final answer). */
  text: string;
  toolCall?: { name: string; args: Record<string, unknown> };
}

export interface Task {
  shopUrl: string | undefined;
  query: string;
  maxPrice: number;
  quantity: number;
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  a: 1,
  an: 1,
};
/** Give up after this many tool calls: a loop must end, and the demo's exit code says it failed. */
const MAX_CALLS = 24;

export function parseTask(text: string): Task {
  const shopUrl = /https?:\/\/[^\s)>"']+/.exec(text)?.[0]?.replace(/[.,;]+$/, '');
  const maxPrice = Number(/under \$?(\d+(?:\.\d+)?)/i.exec(text)?.[1] ?? Infinity);
  const qtyWord = /\badd (\w+)/i.exec(text)?.[1]?.toLowerCase() ?? '1';
  const quantity = Number.isFinite(Number(qtyWord))
    ? Number(qtyWord)
    : (NUMBER_WORDS[qtyWord] ?? 1);
  const what =
    /cheapest (.+?)(?: under| below| for less|,| and |$)/i.exec(text)?.[1]?.trim() ?? 'USB-C cable';
  return { shopUrl, query: what, maxPrice, quantity };
}

/** Does a listing's name describe the thing asked for ("USB-C cable": has USB-C and cable)? */
export function matchesQuery(name: string, query: string): boolean {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/s$/, ''))
    .filter((w) => w.length > 1 && !['the', 'a', 'an'].includes(w));
  const hay = name.toLowerCase();
  return words.every((w) =>
    new RegExp(`(^|[^a-z0-9-])${w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}`).test(hay),
  );
}

const money = (n: number) => (Number.isInteger(n) ? `$${n}` : `$${n.toFixed(2)}`);

export function decide(messages: readonly ChatMessage[]): NextMove {
  const task = parseTask(taskOf(messages));
  const history = exchangesOf(messages);
  const last = history.at(-1);
  const tabArgs = (): Record<string, unknown> => {
    const tabId = shopTabId(history, task);
    return tabId === undefined ? {} : { tabId };
  };
  const call = (text: string, name: string, args: Record<string, unknown>): NextMove => ({
    text,
    toolCall: { name, args: { ...args, ...tabArgs() } },
  });

  if (history.length >= MAX_CALLS)
    return {
      text: `I stopped after ${history.length} browser actions without finishing the task.`,
    };
  if (!last) return call("I'll start by reading the page in this tab.", 'browser_snapshot', {});

  // A failed call (stale ref, page still loading, wrong tab): look again before anything else.
  const failures = trailingFailures(history);
  if (failures >= 3)
    return {
      text: `The browser kept failing (${failures} times in a row): ${firstLine(last.result)}. I could not finish the task.`,
    };

  switch (last.name) {
    case 'browser_tabs':
    case 'browser_tab_open': {
      const tabId = shopTabId(history, task);
      if (tabId !== undefined)
        return call(`The shop is in tab ${tabId}; reading it.`, 'browser_snapshot', {});
      if (last.name === 'browser_tabs' && task.shopUrl) {
        return call(
          `I cannot find the shop among the tabs; opening ${task.shopUrl} in a new tab.`,
          'browser_tab_open',
          { url: task.shopUrl, active: true },
        );
      }
      return { text: `I could not open the shop: ${firstLine(last.result)}` };
    }
    case 'browser_snapshot':
      return onPage(task, history, last, call);
    case 'browser_type':
      if (failed(last))
        return call('That did not work; reading the page again.', 'browser_snapshot', {});
      if (String(last.args.text) === String(task.quantity)) {
        const page = latestPage(history);
        const add = page && findElement(page, 'button', /add to (cart|basket|bag)/i);
        if (add) return call('Adding them to the cart.', 'browser_click', { ref: add.ref });
      }
      return call('Reading the page to see what changed.', 'browser_snapshot', {});
    default:
      // browser_click, browser_navigate, browser_go_back…: the page changed, look at it.
      return call(
        failed(last)
          ? 'That did not work; reading the page again.'
          : 'Reading the page to see what changed.',
        'browser_snapshot',
        {},
      );
  }
}

type Call = (text: string, name: string, args: Record<string, unknown>) => NextMove;

function onPage(task: Task, history: ToolExchange[], last: ToolExchange, call: Call): NextMove {
  const page = readSnapshot(last.result);
  if (!page) {
    // Not a snapshot: most likely the conversation's tab is not a web page. Find the shop's tab.
    if (!history.some((h) => h.name === 'browser_tabs'))
      return call(
        'I cannot read this tab; listing the open tabs to find the shop.',
        'browser_tabs',
        {},
      );
    if (!history.some((h) => h.name === 'browser_tab_open') && task.shopUrl) {
      return call(`Opening the shop at ${task.shopUrl} in a new tab.`, 'browser_tab_open', {
        url: task.shopUrl,
        active: true,
      });
    }
    return { text: `I cannot read the page: ${firstLine(last.result)}` };
  }
  if (task.shopUrl && !sameOrigin(page.url, task.shopUrl)) {
    return call(
      `This tab shows ${page.url}, not the shop; opening ${task.shopUrl}.`,
      'browser_navigate',
      { url: task.shopUrl },
    );
  }
  const chosen = chosenProduct(history);

  // The cart: done when it holds the chosen product in the right quantity.
  if (/\/cart\b/.test(page.url) && chosen) {
    const row = page.elements.find((e) => e.role === 'link' && e.name === chosen.name);
    const qty = row ? Number(/^(\d+)\s*\|/.exec(row.after[0] ?? '')?.[1] ?? NaN) : NaN;
    if (row && qty === task.quantity) {
      const total = page.lines.map((l) => /Total:\s*\$(\d+\.\d{2})/.exec(l)?.[1]).find(Boolean);
      return {
        text: `Done. The cheapest ${task.query} under ${money(task.maxPrice)} is **${chosen.name}** at ${money(chosen.price)}, and your cart now holds ${qty} of it${total ? ` (cart total $${total})` : ''}.`,
      };
    }
    if (row)
      return {
        text: `The cart holds ${Number.isNaN(qty) ? 'an unexpected number' : qty} of ${chosen.name}, not ${task.quantity}. I stopped rather than guess.`,
      };
  }

  // A product page: set the quantity, then add to the cart.
  const add = findElement(page, 'button', /add to (cart|basket|bag)/i);
  const quantity = findElement(page, /^(spinbutton|textbox|combobox)$/, /quantity|qty/i);
  if (add) {
    const heading = page.lines.map((l) => /^\s*# (.+)$/.exec(l)?.[1]).find(Boolean);
    if (chosen && heading && heading.trim() !== chosen.name) {
      return call(
        `This is ${heading}, not the product I picked; going back to it.`,
        'browser_navigate',
        { url: new URL(page.url).origin + '/' },
      );
    }
    if (quantity && valueOf(quantity) !== String(task.quantity)) {
      return call(
        `This is the product page. Setting the quantity to ${task.quantity}.`,
        'browser_type',
        { ref: quantity.ref, text: String(task.quantity) },
      );
    }
    return call('Adding to the cart.', 'browser_click', { ref: add.ref });
  }

  // A list of products: pick the cheapest matching one under the limit.
  const matching = listings(page).filter((l) => matchesQuery(l.name, task.query));
  const searched = history.some((h) => h.name === 'browser_type' && h.args.submit === true);
  if (matching.length && (searched || !findElement(page, /^(searchbox|textbox)$/, /search/i))) {
    const under = matching.filter((l) => l.price < task.maxPrice).sort((a, b) => a.price - b.price);
    if (!under.length)
      return {
        text: `None of the ${matching.length} ${task.query}s here costs less than ${money(task.maxPrice)}.`,
      };
    const best = under[0];
    const others = matching.filter((l) => l !== best).map((l) => `${l.name} (${money(l.price)})`);
    return call(
      `I see ${matching.length} ${task.query}s. Under ${money(task.maxPrice)}: ${under.map((l) => `${l.name} (${money(l.price)})`).join(', ')}. ` +
        `The cheapest is ${best.name} at ${money(best.price)}${others.length ? `; the others cost more or are over the limit` : ''}. Opening it.`,
      'browser_click',
      { ref: best.ref },
    );
  }

  // Otherwise search for it.
  const search = findElement(page, 'searchbox') ?? findElement(page, 'textbox', /search/i);
  if (search && !searched) {
    return call(`This is the shop's home page. Searching for "${task.query}".`, 'browser_type', {
      ref: search.ref,
      text: task.query,
      submit: true,
    });
  }
  return { text: `I could not find ${task.query}s on ${page.url}.` };
}

/** The product the model decided on: the last click on a listing it had seen. */
function chosenProduct(history: ToolExchange[]): Listing | undefined {
  let seen: Listing[] = [];
  let chosen: Listing | undefined;
  for (const h of history) {
    if (h.name === 'browser_snapshot') {
      const page = readSnapshot(h.result);
      if (page) seen = listings(page);
    } else if (h.name === 'browser_click') {
      chosen = seen.find((l) => l.ref === h.args.ref) ?? chosen;
    }
  }
  return chosen;
}

function latestPage(history: ToolExchange[]): PageView | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].name === 'browser_snapshot') {
      const page = readSnapshot(history[i].result);
      if (page) return page;
    }
  }
  return undefined;
}

/** The shop's tab, once browser_tabs listed it (`- tab 12 (…): "Title" http://…`) or browser_tab_open opened it. */
function shopTabId(history: ToolExchange[], task: Task): number | undefined {
  if (!task.shopUrl) return undefined;
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (h.name === 'browser_tab_open') {
      const m = /Opened tab (\d+) at (\S+)/.exec(h.result);
      if (m && sameOrigin(m[2], task.shopUrl)) return Number(m[1]);
    } else if (h.name === 'browser_tabs') {
      for (const line of h.result.split('\n')) {
        const m = /^- tab (\d+)\b.*\s(\S+)$/.exec(line.trim());
        if (m && sameOrigin(m[2], task.shopUrl)) return Number(m[1]);
      }
    }
  }
  return undefined;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** A result that reports a failure rather than what the tool did. */
function failed(h: ToolExchange): boolean {
  if (!h.result.trim()) return true;
  if (h.name === 'browser_snapshot') return !readSnapshot(h.result);
  return /^(error|failed|cannot|no tab|tab \d+ does not exist|stale|the element|not executed|interrupted|the user denied)/i.test(
    h.result.trim(),
  );
}

function trailingFailures(history: ToolExchange[]): number {
  let n = 0;
  for (let i = history.length - 1; i >= 0 && failed(history[i]); i--) n++;
  return n;
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 200) ?? '(no message)'
  );
}
