import { describe, expect, it } from 'vitest';
import { carriedForeignUrl, readingsOf } from '../../../src/tools/browser/carried-urls';
import { exfiltrationRisk } from '../../../src/tools/browser/restricted';

/**
 * The open-redirect check reads a carried address as the browser's URL parser does (WHATWG):
 * `\` is `/` in http(s) URLs, tabs and newlines vanish, `http:host` without slashes names a host
 * from an https page, and servers that add a scheme turn `evil.example/x` into a host. Every row
 * here was a spelling the regex-based check read as a harmless path.
 */
const FROM = 'https://mail.example/inbox';
const CARRIER = 'https://mail.example/redirect';

describe('addresses carried inside a URL, read as the browser reads them', () => {
  it.each([
    ['/\\evil.example/x', 'https://evil.example'],
    ['\\\\evil.example/x', 'https://evil.example'],
    ['http:\\\\evil.example/x', 'http://evil.example'],
    ['http:/\\evil.example', 'http://evil.example'],
    ['/%09/evil.example/x', 'https://evil.example'],
    ['/%0a/evil.example', 'https://evil.example'],
    ['%2F%2Fevil.example', 'https://evil.example'],
    ['http:evil.example/x', 'http://evil.example'],
    ['https:evil.example', 'https://evil.example'],
    ['evil.example/x?d=1', 'https://evil.example'],
    ['evil.example:8443', 'https://evil.example:8443'],
    ['127.0.0.1:9/x', 'https://127.0.0.1:9'],
    ['HTTPS://EVIL.EXAMPLE', 'https://evil.example'],
    ['  //evil.example', 'https://evil.example'],
    ['https%253A%252F%252Fevil.example', 'https://evil.example'],
  ])('?u=%s leads to %s', (value, origin) => {
    const u = new URL(CARRIER);
    u.searchParams.set(
      'u',
      value.replace(/%([0-9a-f]{2})/gi, (m) => decodeURIComponent(m)),
    );
    // Also the raw spelling, as it would stand in a link's href.
    const raw = new URL(`${CARRIER}?u=${value}`);
    for (const carrier of [u, raw]) {
      const found = carriedForeignUrl(carrier, new URL(FROM).origin);
      expect(found?.origin, `${carrier.href}`).toBe(origin);
    }
  });

  it('finds addresses in the fragment and in the path', () => {
    for (const href of [
      'https://mail.example/out#/\\evil.example/x',
      'https://mail.example/go/https:%2F%2Fevil.example',
      'https://mail.example/out/https://evil.example/x',
      'https://mail.example/out/http:%5C%5Cevil.example/x',
    ]) {
      expect(carriedForeignUrl(new URL(href), 'https://mail.example')?.hostname, href).toBe(
        'evil.example',
      );
    }
  });

  it.each([
    'https://mail.example/login?next=/inbox',
    'https://mail.example/login?next=https://mail.example/inbox',
    'https://mail.example/search?q=hello+world&page=2',
    'https://mail.example/search?v=1.5&t=12:30&lang=en-US',
    'https://mail.example/files?name=index.php&doc=docs/readme.md',
    'https://mail.example/app#/settings/profile',
    'https://mail.example/mail?to=mailto:bob@example.com',
    'https://mail.example/run?x=javascript:void(0)',
    'https://mail.example/docs/page.html',
  ])('%s carries no other site', (href) => {
    expect(carriedForeignUrl(new URL(href), 'https://mail.example')).toBeUndefined();
  });

  it('a relative value is a path of the carrier; an absolute one is its own address', () => {
    const carrier = new URL('http://shop.example/r');
    expect(readingsOf('http:evil.example/x', carrier).map((u) => u.href)).toEqual([
      // Resolved against an http page: a path on the same site (the WHATWG rule) …
      'http://shop.example/evil.example/x',
      // … but on its own, or from an https page, a host.
      'http://evil.example/x',
    ]);
    expect(readingsOf('plain words', carrier).map((u) => u.origin)).toEqual([
      'http://shop.example',
    ]);
  });

  it('the navigation check asks for each spelling of the issue', () => {
    for (const href of [
      'https://mail.example/redirect?u=/\\evil.example/steal',
      'https://mail.example/redirect?u=http:\\\\evil.example/steal',
      'https://mail.example/redirect?u=/%09/evil.example/steal',
      'https://mail.example/redirect?u=http:evil.example/steal',
      'https://mail.example/redirect?u=evil.example/steal',
    ]) {
      expect(exfiltrationRisk(FROM, href), href).toMatch(/another site's address/);
    }
  });
});
