import { describe, expect, it } from 'vitest';
import { pageToolName, siteSlug } from '../../../../src/tools/page/page-tool-names';

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

describe('page tool names', () => {
  it('prefix the tool with its site: page_<host and port>_<name>', () => {
    expect(pageToolName('https://shop.example', 'add_to_cart')).toBe(
      'page_shop_example_add_to_cart',
    );
    expect(pageToolName('http://127.0.0.1:8080', 'search')).toBe('page_127_0_0_1_8080_search');
    expect(siteSlug('https://www.Example.COM:8443')).toBe('www_example_com_8443');
  });

  it('are stable: the same tool of the same site always gets the same name', () => {
    const a = pageToolName('https://shop.example', 'find flights ✈');
    expect(pageToolName('https://shop.example', 'find flights ✈')).toBe(a);
    expect(a).toMatch(NAME_RE);
  });

  it('clean, clip and tag names that are invalid or too long, keeping them distinct', () => {
    const dotted = pageToolName('https://shop.example', 'cart.add');
    const underscored = pageToolName('https://shop.example', 'cart_add');
    expect(dotted).toMatch(/^page_shop_example_cart_add_[0-9a-f]{8}$/);
    expect(underscored).toBe('page_shop_example_cart_add');
    const long = pageToolName('https://a-very-long-subdomain.of-some.example.org', 'x'.repeat(200));
    expect(long).toMatch(NAME_RE);
    expect(long.length).toBe(64);
    expect(
      pageToolName('https://a-very-long-subdomain.of-some.example.org', 'x'.repeat(201)),
    ).not.toBe(long);
    expect(pageToolName('https://shop.example', '')).toMatch(NAME_RE);
  });

  it('differ between sites for the same tool name', () => {
    expect(pageToolName('https://a.example', 'search')).not.toBe(
      pageToolName('https://b.example', 'search'),
    );
  });
});
