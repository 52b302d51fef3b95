/**
 * A DOM audit for extension pages that render untrusted text: installed before anything arrives,
 * it records (for every mutation, not just the end state) scripts, frames, objects, event-handler
 * attributes, javascript:/vbscript:/data: URLs, CSP violation reports, and — inside rendered
 * markdown — any tag outside the sanitizer's allowlist and links that do not open a new tab
 * without an opener. `readTraps` also audits the page as it is now.
 */
import type { Page } from 'playwright-core';

/** Installed in the panel page before anything untrusted arrives: records everything suspicious. */
export function installTraps(): void {
  const w = window as unknown as { __xss: unknown; __findings: string[]; __csp: string[] };
  w.__xss = 0;
  w.__findings = [];
  w.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
  );
  const note = (what: string) => {
    if (!w.__findings.includes(what) && w.__findings.length < 100) w.__findings.push(what);
  };
  const NEVER = new Set([
    'script',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'base',
    'meta',
    'link',
    'applet',
    'portal',
  ]);
  const initial = new Set(Array.from(document.querySelectorAll([...NEVER].join(','))));
  // What the sanitizer may emit, plus the copy buttons Keel adds around code blocks.
  const MARKDOWN_TAGS = new Set(
    'a b blockquote br code del em h1 h2 h3 h4 h5 h6 hr i img kbd li ol p pre s span strong sub sup table tbody td tfoot th thead tr ul div button'.split(
      ' ',
    ),
  );
  const URL_ATTRS = new Set([
    'href',
    'src',
    'action',
    'formaction',
    'xlink:href',
    'data',
    'background',
    'poster',
    'srcset',
    'ping',
    'cite',
  ]);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters before a scheme are exactly what a browser skips.
  const BAD_URL = /^[\s\0-\x1f]*(javascript|vbscript|data)\s*:/i;
  const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,/i;
  const where = (el: Element) =>
    `${el.localName}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''} in ${el.parentElement?.closest('[class]')?.className ?? '?'}`;
  const check = (el: Element) => {
    if (NEVER.has(el.localName) && !initial.has(el)) note(`<${el.localName}> ${where(el)}`);
    for (const { name, value } of Array.from(el.attributes)) {
      if (name.startsWith('on')) note(`${name}= on ${where(el)}`);
      if (name === 'srcdoc') note(`srcdoc on ${where(el)}`);
      if (
        URL_ATTRS.has(name) &&
        BAD_URL.test(value) &&
        !(el.localName === 'img' && name === 'src' && SAFE_IMAGE.test(value.trim()))
      ) {
        note(`${name}="${value.slice(0, 40)}" on ${where(el)}`);
      }
      if (name === 'style' && /javascript:|expression\(|url\(/i.test(value))
        note(`style="${value.slice(0, 40)}" on ${where(el)}`);
    }
    const md = el.closest('.markdown');
    if (md && el !== md) {
      if (!MARKDOWN_TAGS.has(el.localName)) note(`<${el.localName}> inside rendered markdown`);
      if (
        (el.localName === 'div' && el.className !== 'code-block') ||
        (el.localName === 'button' && el.className !== 'copy-code')
      ) {
        note(`<${el.localName} class="${el.className}"> inside rendered markdown`);
      }
      if (el.localName === 'a') {
        const href = el.getAttribute('href');
        if (href !== null && !/^(https?:|mailto:)/i.test(href))
          note(`link to ${href.slice(0, 40)}`);
        if (href !== null && el.getAttribute('target') !== '_blank')
          note(`link without target=_blank: ${href}`);
        const rel = (el.getAttribute('rel') ?? '').split(/\s+/);
        if (href !== null && !(rel.includes('noopener') && rel.includes('noreferrer')))
          note(`link without rel=noopener noreferrer: ${href}`);
      }
      if (
        el.getAttribute('class') &&
        !['code-block', 'copy-code'].includes(el.className) &&
        !/^language-/.test(el.className)
      ) {
        note(`class="${el.className}" inside rendered markdown`);
      }
    }
  };
  const audit = (root: Element) => {
    check(root);
    for (const el of Array.from(root.querySelectorAll('*'))) check(el);
  };
  (window as unknown as { __audit: () => void }).__audit = () => audit(document.documentElement);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.target instanceof Element) check(r.target);
      for (const n of Array.from(r.addedNodes)) if (n instanceof Element) audit(n);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

export interface Traps {
  xss: unknown;
  findings: string[];
  csp: string[];
}

export const readTraps = (page: Page): Promise<Traps> =>
  page.evaluate(() => {
    const w = window as unknown as {
      __xss: unknown;
      __findings: string[];
      __csp: string[];
      __audit: () => void;
    };
    w.__audit();
    return { xss: w.__xss, findings: w.__findings.slice(), csp: w.__csp.slice() };
  });
