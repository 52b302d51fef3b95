/**
 * The snapshot benchmark's own page set: pages generated from a seed, written by us, covering the
 * structures of a real-site corpus (whose pages belong to their sites and are not copied into
 * the repository): long articles wrapped in navigation, deep nesting, long tables, forms, iframes
 * (same-origin, srcdoc, nested, hidden), shadow DOM (open, declarative, nested, closed), hidden
 * text of every kind, huge lists, ARIA widgets, and pages as heavy as the corpus's largest
 * (inline scripts and styles included). The same seed gives the same bytes.
 *
 *   writePageSet(dir, seed)   → the file names written (frames go to dir/frames/)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** mulberry32: small, fast and good enough to vary page shapes reproducibly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mer',
  'tis',
  'an',
  'vel',
  'ro',
  'dun',
  'si',
  'pra',
  'ne',
  'hol',
  'qua',
  'bes',
  'ti',
  'mon',
  'ur',
  'ga',
  'fen',
  'li',
];

/** Text and markup helpers over one random stream. */
export class Writer {
  constructor(private readonly random: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)];
  }
  word(): string {
    let w = '';
    for (let i = this.int(1, 3); i > 0; i--) w += this.pick(SYLLABLES);
    return w;
  }
  words(min: number, max: number): string {
    return Array.from({ length: this.int(min, max) }, () => this.word()).join(' ');
  }
  title(): string {
    const t = this.words(2, 6);
    return t[0].toUpperCase() + t.slice(1);
  }
  sentence(): string {
    return `${this.title()}.`;
  }
  paragraph(): string {
    return Array.from(
      { length: this.int(2, 7) },
      () => `${this.title()} ${this.words(4, 14)}.`,
    ).join(' ');
  }
  /** An inert script or style blob the size real pages carry (analytics, CSS frameworks). */
  blob(kb: number): string {
    const lines: string[] = [];
    for (let size = 0; size < kb * 1024; ) {
      const line = `var ${this.word()}_${this.int(0, 9999)} = ${JSON.stringify(this.words(3, 12))};`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n');
  }
  link(): string {
    return `<a href="/${this.word()}/${this.int(1, 9999)}">${this.words(1, 4)}</a>`;
  }
}

export const page = (title: string, body: string, head = ''): string =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>\n<body>\n${body}\n</body></html>\n`;

function nav(w: Writer, links: number): string {
  const items = Array.from({ length: links }, () => `<li>${w.link()}</li>`).join('');
  return `<header><a href="/" class="logo">${w.title()}</a><nav aria-label="Main"><ul>${items}</ul></nav><form role="search" action="/search"><input type="search" name="q" placeholder="Search"><button>Go</button></form></header>`;
}

function article(w: Writer, paragraphs: number, scriptKb: number): string {
  const parts: string[] = [
    nav(w, w.int(20, 60)),
    `<main><article><h1>${w.title()}</h1><p class="byline">By ${w.title()}</p>`,
  ];
  for (let i = 0; i < paragraphs; i++) {
    if (i % 9 === 4) parts.push(`<h2>${w.title()}</h2>`);
    if (i % 13 === 7)
      parts.push(
        `<figure><svg width="320" height="180" role="img" aria-label="${w.words(2, 5)}"><rect width="320" height="180" fill="#ccd"/></svg><figcaption>${w.sentence()}</figcaption></figure>`,
      );
    if (i % 17 === 11) parts.push(`<blockquote>${w.paragraph()}</blockquote>`);
    parts.push(`<p>${w.paragraph()} ${w.link()} ${w.words(3, 10)}.</p>`);
  }
  parts.push(
    `</article><aside><h2>Related</h2><ul>${Array.from({ length: 12 }, () => `<li>${w.link()}</li>`).join('')}</ul></aside></main>`,
  );
  parts.push(
    `<footer>${Array.from({ length: 30 }, () => w.link()).join(' · ')}<p>${w.sentence()}</p></footer>`,
  );
  parts.push(`<script>${w.blob(scriptKb)}</script>`);
  return parts.join('\n');
}

function deepNesting(w: Writer, depth: number): string {
  let inner = `<p>${w.paragraph()}</p><button type="button">${w.title()}</button><a href="/deep">${w.words(1, 3)}</a>`;
  for (let d = depth; d > 0; d--) {
    const tag = w.pick(['div', 'div', 'section', 'span', 'div']);
    const text = d % 25 === 0 ? `<h3>${w.title()}</h3>` : d % 7 === 0 ? `${w.words(1, 4)} ` : '';
    inner = `<${tag} class="l${d}">${text}${inner}</${tag}>`;
  }
  let list = `<li>${w.link()}</li>`;
  for (let d = Math.min(Math.round(depth / 4), 60); d > 0; d--)
    list = `<li>${w.words(1, 2)}<ul>${list}</ul></li>`;
  return `${nav(w, 10)}<main><h1>${w.title()}</h1>${inner}<ul>${list}</ul></main>`;
}

function longTable(w: Writer, rows: number): string {
  const head = `<thead><tr><th><input type="checkbox" aria-label="Select all"></th>${Array.from({ length: 7 }, () => `<th scope="col">${w.title()}</th>`).join('')}</tr></thead>`;
  const body: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells = [
      `<td><input type="checkbox" aria-label="Select row ${r + 1}"></td>`,
      `<th scope="row">${w.link()}</th>`,
    ];
    for (let c = 0; c < 5; c++) cells.push(`<td>${c === 2 ? w.int(0, 99999) : w.words(1, 3)}</td>`);
    cells.push(`<td><button type="button">Edit</button></td>`);
    body.push(`<tr>${cells.join('')}</tr>`);
  }
  return `${nav(w, 15)}<main><h1>${w.title()}</h1><table><caption>${w.sentence()}</caption>${head}<tbody>${body.join('\n')}</tbody></table></main>`;
}

function form(w: Writer, fieldsets: number): string {
  const types = [
    'text',
    'email',
    'tel',
    'url',
    'number',
    'date',
    'password',
    'search',
    'range',
    'color',
    'file',
    'time',
  ];
  const sets: string[] = [];
  for (let f = 0; f < fieldsets; f++) {
    const fields: string[] = [];
    for (let i = 0; i < w.int(4, 9); i++) {
      const id = `f${f}-${i}`;
      const kind = w.int(0, 9);
      if (kind < 5) {
        const extra = w.pick([
          '',
          ' required',
          ' disabled',
          ` placeholder="${w.words(1, 3)}"`,
          ` aria-describedby="${id}-hint"`,
          ' readonly',
        ]);
        fields.push(
          `<label for="${id}">${w.title()}</label><input id="${id}" name="${id}" type="${w.pick(types)}"${extra}><small id="${id}-hint">${w.sentence()}</small>`,
        );
      } else if (kind < 7) {
        const opts = Array.from(
          { length: w.int(3, 20) },
          (_, k) => `<option value="${k}">${w.words(1, 3)}</option>`,
        ).join('');
        fields.push(
          `<label>${w.title()} <select name="${id}"><optgroup label="${w.word()}">${opts}</optgroup></select></label>`,
        );
      } else if (kind < 8) {
        fields.push(
          `<label for="${id}">${w.title()}</label><textarea id="${id}" rows="3">${w.words(0, 8)}</textarea>`,
        );
      } else {
        const radios = Array.from(
          { length: w.int(2, 5) },
          (_, k) =>
            `<label><input type="radio" name="${id}" value="${k}"> ${w.words(1, 2)}</label>`,
        ).join('');
        fields.push(
          `<div role="radiogroup" aria-label="${w.title()}">${radios}</div><input type="hidden" name="${id}-token" value="${w.int(0, 1e9)}">`,
        );
      }
    }
    sets.push(`<fieldset><legend>${w.title()}</legend>${fields.join('\n')}</fieldset>`);
  }
  return `${nav(w, 12)}<main><h1>${w.title()}</h1><form action="/submit" method="post">${sets.join('\n')}<label><input type="checkbox" required> ${w.sentence()}</label><button type="submit">Submit</button><button type="reset">Reset</button></form></main>`;
}

function frames(w: Writer, files: Map<string, string>, n: number): string {
  const inner = page(
    'inner',
    `<h2>${w.title()}</h2><p>${w.paragraph()}</p><button>${w.title()}</button>`,
  );
  const outer = page(
    'outer',
    `<h2>${w.title()}</h2>${form(w, 1)}<iframe src="inner-${n}.html" title="${w.words(1, 3)}"></iframe>`,
  );
  files.set(`frames/inner-${n}.html`, inner);
  files.set(`frames/outer-${n}.html`, outer);
  const srcdoc = page(
    'doc',
    `<p>${w.paragraph()}</p><a href="/x">${w.words(1, 3)}</a><input aria-label="${w.word()}">`,
  ).replace(/"/g, '&quot;');
  return `${nav(w, 10)}<main><h1>${w.title()}</h1><p>${w.paragraph()}</p>
<iframe src="frames/outer-${n}.html" title="${w.title()}" width="600" height="400"></iframe>
<iframe srcdoc="${srcdoc}" title="${w.title()}"></iframe>
<iframe src="frames/inner-${n}.html" style="display:none" title="hidden frame"></iframe>
<iframe src="frames/inner-${n}.html" sandbox="" title="${w.title()}"></iframe>
<iframe src="frames/inner-${n}.html" width="1" height="1" title="tracker"></iframe>
<p>${w.paragraph()}</p></main>`;
}

function shadow(w: Writer, hosts: number): string {
  const parts: string[] = [nav(w, 10), `<main><h1>${w.title()}</h1>`];
  for (let i = 0; i < hosts; i++) {
    parts.push(
      `<x-card data-title="${w.title()}" data-text="${w.paragraph()}"><span slot="extra">${w.words(2, 5)}</span></x-card>`,
    );
    if (i % 3 === 0) {
      parts.push(
        `<div class="dsd"><template shadowrootmode="open"><h3>${w.title()}</h3><p>${w.paragraph()}</p><button>${w.title()}</button><slot></slot></template><a href="/light">${w.words(1, 3)}</a></div>`,
      );
    }
    if (i % 5 === 0) parts.push(`<x-secret data-text="${w.sentence()}"></x-secret>`);
  }
  parts.push(`</main><script>
customElements.define('x-card', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<h3></h3><p></p><slot name="extra"></slot><x-inner></x-inner><button type="button">Open</button><input aria-label="Note">';
    root.querySelector('h3').textContent = this.dataset.title;
    root.querySelector('p').textContent = this.dataset.text;
  }
});
customElements.define('x-inner', class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<a href="/nested">Nested link</a> <span role="button" tabindex="0">Nested button</span>'; }
});
customElements.define('x-secret', class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: 'closed' }).textContent = this.dataset.text; }
});
</script>`);
  return parts.join('\n');
}

function hiddenText(w: Writer, blocks: number): string {
  const hiders = [
    (x: string) => `<div style="display:none">${x}</div>`,
    (x: string) => `<div style="visibility:hidden">${x}</div>`,
    (x: string) => `<div hidden>${x}</div>`,
    (x: string) => `<div aria-hidden="true">${x}</div>`,
    (x: string) => `<div style="opacity:0">${x}</div>`,
    (x: string) => `<div style="position:absolute;left:-9999px">${x}</div>`,
    (x: string) =>
      `<div style="clip:rect(0 0 0 0);position:absolute;width:1px;height:1px;overflow:hidden">${x}</div>`,
    (x: string) => `<div style="font-size:0">${x}</div>`,
    (x: string) => `<div style="height:0;overflow:hidden">${x}</div>`,
    (x: string) => `<details><summary>${w.words(1, 3)}</summary>${x}</details>`,
    (x: string) => `<template>${x}</template>`,
    (x: string) => `<div inert>${x}</div>`,
    (x: string) => `<div style="color:#fff;background:#fff">${x}</div>`,
  ];
  const parts: string[] = [nav(w, 10), `<main><h1>${w.title()}</h1>`];
  for (let i = 0; i < blocks; i++) {
    parts.push(`<p>${w.paragraph()}</p>`);
    parts.push(
      hiders[i % hiders.length](
        `<p>${w.paragraph()}</p><button>${w.title()}</button><a href="/hidden/${i}">${w.words(1, 3)}</a>`,
      ),
    );
  }
  parts.push('</main>');
  return parts.join('\n');
}

function hugeList(w: Writer, items: number): string {
  const li: string[] = [];
  for (let i = 0; i < items; i++)
    li.push(
      i % 3 === 0
        ? `<li>${w.link()} <span>${w.words(1, 4)}</span></li>`
        : `<li>${w.words(2, 6)}</li>`,
    );
  return `${nav(w, 20)}<main><h1>${w.title()}</h1><ol>${li.join('\n')}</ol></main>`;
}

function widgets(w: Writer): string {
  const tabs = Array.from(
    { length: 5 },
    (_, i) =>
      `<button role="tab" aria-selected="${i === 0}" aria-controls="p${i}" id="t${i}">${w.title()}</button>`,
  ).join('');
  const panels = Array.from(
    { length: 5 },
    (_, i) =>
      `<div role="tabpanel" id="p${i}" aria-labelledby="t${i}"${i ? ' hidden' : ''}><p>${w.paragraph()}</p></div>`,
  ).join('');
  const tree = Array.from(
    { length: 6 },
    () =>
      `<li role="treeitem" aria-expanded="false">${w.title()}<ul role="group"><li role="treeitem">${w.words(1, 3)}</li></ul></li>`,
  ).join('');
  return `${nav(w, 8)}<main><h1>${w.title()}</h1>
<div role="tablist">${tabs}</div>${panels}
<div role="menubar"><div role="menuitem" tabindex="0" aria-haspopup="true">${w.title()}</div><div role="menu" hidden><div role="menuitem">${w.title()}</div></div></div>
<label id="cb">${w.title()}</label><input role="combobox" aria-labelledby="cb" aria-expanded="false" aria-controls="lb"><ul role="listbox" id="lb"><li role="option">${w.word()}</li><li role="option" aria-selected="true">${w.word()}</li></ul>
<ul role="tree">${tree}</ul>
<div role="slider" tabindex="0" aria-valuemin="0" aria-valuemax="100" aria-valuenow="40" aria-label="${w.word()}"></div>
<div role="switch" tabindex="0" aria-checked="true">${w.title()}</div>
<div role="dialog" aria-modal="false" aria-label="${w.title()}"><p>${w.sentence()}</p><button>${w.title()}</button></div>
<div dir="rtl"><p>${w.paragraph()}</p></div>
<div contenteditable="true"><p>${w.paragraph()}</p></div>
</main>`;
}

/** The page set: [file name, html]. Sizes span the corpus (a few KB to about 1.5 MB). */
export function generatePages(seed: number): Map<string, string> {
  const w = new Writer(rng(seed));
  const files = new Map<string, string>();
  const add = (name: string, title: string, body: string) =>
    files.set(`${name}.html`, page(title, body));
  add('article-short', 'Short article', article(w, 8, 2));
  add('article-news', 'News article', article(w, 60, 120));
  add('article-heavy', 'Heavy article', article(w, 160, 900));
  // Playwright's AI snapshot handles about 50 levels: one page under that, one far over it.
  add('deep-nesting-40', 'Deep nesting', deepNesting(w, 40));
  add('deep-nesting-400', 'Very deep nesting', deepNesting(w, 400));
  add('long-table-400', 'Long table', longTable(w, 400));
  add('long-table-1500', 'Very long table', longTable(w, 1500));
  add('forms-small', 'Form', form(w, 2));
  add('forms-large', 'Large form', form(w, 18));
  add('iframes', 'Frames', frames(w, files, 1));
  add('shadow-dom', 'Shadow DOM', shadow(w, 30));
  add('hidden-text', 'Hidden text', hiddenText(w, 60));
  add('huge-list-3000', 'Huge list', hugeList(w, 3000));
  add('huge-list-8000', 'Very huge list', hugeList(w, 8000));
  add('aria-widgets', 'ARIA widgets', widgets(w));
  add('empty', 'Empty', '');
  add(
    'mixed-heavy',
    'Everything at once',
    [
      article(w, 40, 300),
      longTable(w, 300),
      form(w, 4),
      hiddenText(w, 20),
      shadow(w, 8),
      frames(w, files, 2),
      hugeList(w, 1500),
    ].join('\n'),
  );
  return files;
}

/** Writes the set into `dir` (pages at its top, frames in dir/frames/); returns the page names. */
export function writePageSet(dir: string, seed: number): string[] {
  mkdirSync(join(dir, 'frames'), { recursive: true });
  const pages: string[] = [];
  for (const [name, html] of generatePages(seed)) {
    writeFileSync(join(dir, name), html);
    if (!name.includes('/')) pages.push(name);
  }
  return pages.sort();
}
