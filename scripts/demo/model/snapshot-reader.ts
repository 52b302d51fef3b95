/**
 * Parsing a browser_snapshot result (PROTOCOL.md "Browser tools: what the model sees"): every
 * element the model can act on is one line `- role "name" [ref=eN] …`, optionally followed by
 * `: value`; text lines in between belong to the element above them.
 */

export interface SnapshotElement {
  role: string;
  name: string;
  ref: string;
  /** What follows the ref: states in brackets and `: value`. */
  rest: string;
  /** Text lines after this element, up to the next element line. */
  after: string[];
}

export interface PageView {
  url: string;
  title: string;
  tabId: number | undefined;
  elements: SnapshotElement[];
  lines: string[];
}

const ELEMENT = /^\s*- ([a-z]+) "((?:[^"\\]|\\.)*)" \[ref=([a-z0-9]+)\](.*)$/i;
const ANY_ELEMENT = /^\s*- [a-z]+\b/i;

/** undefined when the text is not a snapshot (e.g. an error result). */
export function readSnapshot(result: string): PageView | undefined {
  const header = /Snapshot of tab (\d+)/.exec(result);
  const url = /^URL: (\S+)/m.exec(result)?.[1];
  if (!url) return undefined;
  const title = /^Title: (.*)$/m.exec(result)?.[1] ?? '';
  const lines = result.split('\n');
  const elements: SnapshotElement[] = [];
  let current: SnapshotElement | undefined;
  for (const line of lines) {
    const m = ELEMENT.exec(line);
    if (m) {
      current = { role: m[1], name: m[2].replace(/\\"/g, '"'), ref: m[3], rest: m[4], after: [] };
      elements.push(current);
    } else if (ANY_ELEMENT.test(line)) {
      current = undefined; // a landmark or an element without a ref ends the previous one's text
    } else if (current && line.trim()) {
      current.after.push(line.trim());
    }
  }
  return { url, title, tabId: header ? Number(header[1]) : undefined, elements, lines };
}

export function findElement(
  page: PageView,
  role: string | RegExp,
  name?: RegExp,
): SnapshotElement | undefined {
  return page.elements.find(
    (e) =>
      (typeof role === 'string' ? e.role === role : role.test(e.role)) &&
      (!name || name.test(e.name)),
  );
}

/** The value shown after the ref (`- spinbutton "Quantity" [ref=e6]: 1` → "1"). */
export function valueOf(el: SnapshotElement): string | undefined {
  const m = /:\s(.*)$/.exec(el.rest);
  return m ? m[1].trim() : undefined;
}

export interface Listing {
  name: string;
  ref: string;
  price: number;
}

const PRICE = /\$(\d+(?:\.\d{1,2})?)/;

/** Links followed by a price: the products a list or search result shows. */
export function listings(page: PageView): Listing[] {
  const out: Listing[] = [];
  for (const el of page.elements) {
    if (el.role !== 'link') continue;
    const inName = PRICE.exec(el.name);
    const priceText = inName?.[1] ?? el.after.map((l) => PRICE.exec(l)?.[1]).find(Boolean);
    if (priceText) out.push({ name: el.name, ref: el.ref, price: Number(priceText) });
  }
  return out;
}
