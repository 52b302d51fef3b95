import { describe, expect, it } from 'vitest';
import { approvalDigest } from '../../../src/gatekeeper/approval-digest';
import {
  mcpOrigin,
  normalizeOrigin,
  originOf,
  restrictedReason,
} from '../../../src/gatekeeper/origins';

describe('originOf', () => {
  it.each([
    ['https://shop.example/cart?x=1#y', 'https://shop.example'],
    ['https://shop.example:443/', 'https://shop.example'],
    ['https://shop.example:8443/a', 'https://shop.example:8443'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['HTTPS://Shop.EXAMPLE/', 'https://shop.example'],
    ['https://user:pw@shop.example/', 'https://shop.example'],
    ['file:///home/me/a.html', 'file://'],
    ['chrome://settings/', 'chrome://'],
    ['about:blank', 'about://'],
  ])('%s → %s', (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });

  it('is undefined for nothing or an invalid URL', () => {
    expect(originOf(undefined)).toBeUndefined();
    expect(originOf('')).toBeUndefined();
    expect(originOf('not a url')).toBeUndefined();
  });
});

describe('restrictedReason', () => {
  it('is null for ordinary web pages, files and no URL', () => {
    for (const url of [
      undefined,
      '',
      'https://shop.example/',
      'http://localhost:8080/',
      'file:///tmp/a.html',
      'https://chrome.google.com/intl/en/',
      'https://google.com/webstore',
    ]) {
      expect([url, restrictedReason(url)]).toEqual([url, null]);
    }
  });

  it('names browser-internal schemes', () => {
    for (const url of [
      'chrome://newtab',
      'chrome-extension://id/page.html',
      'chrome-untrusted://x',
      'devtools://devtools',
      'edge://x',
      'about:blank',
      'view-source:https://a.example',
      'chrome-search://local-ntp',
      'javascript:void(0)',
      'data:text/plain,x',
      'blob:https://a.example/uuid',
      'filesystem:https://a.example/temporary/x',
    ]) {
      expect([url, restrictedReason(url)]).toEqual([
        url,
        expect.stringMatching(/browser-internal or belong to an extension/),
      ]);
    }
    expect(restrictedReason('chrome-extension://id/x')).toContain('chrome-extension://');
  });

  it('names the Chrome Web Store, old and new', () => {
    expect(restrictedReason('https://chromewebstore.google.com/')).toMatch(/Web Store/);
    expect(restrictedReason('https://chromewebstore.google.com/detail/x/abc')).toMatch(/Web Store/);
    expect(restrictedReason('https://chrome.google.com/webstore/category/extensions')).toMatch(
      /Web Store/,
    );
  });

  it('treats an address that does not parse as restricted', () => {
    expect(restrictedReason('::::')).toMatch(/not a valid URL/);
  });
});

describe('normalizeOrigin', () => {
  it.each([
    ['example.com', 'https://example.com'],
    ['  Example.COM  ', 'https://example.com'],
    ['https://example.com/some/path?q=1', 'https://example.com'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['https://example.com:443', 'https://example.com'],
    ['sub.example.co.uk/x', 'https://sub.example.co.uk'],
    ['mcp:docs', 'mcp:docs'],
  ])('%s → %s', (input, origin) => {
    expect(normalizeOrigin(input)).toBe(origin);
  });

  it('refuses what is not a web origin', () => {
    for (const input of [
      'chrome://settings',
      'ftp://files.example',
      'file:///tmp',
      'chrome-extension://abc',
      '',
      'two words',
      'https://',
    ]) {
      expect([input, normalizeOrigin(input)]).toEqual([input, null]);
    }
  });

  it('mcpOrigin is the key normalizeOrigin passes through', () => {
    expect(mcpOrigin('docs')).toBe('mcp:docs');
    expect(normalizeOrigin(mcpOrigin('docs'))).toBe('mcp:docs');
  });
});

describe('approvalDigest', () => {
  const D = 'a'.repeat(64);

  it('is a SHA-256 that ignores key order in params', async () => {
    const a = await approvalDigest(
      D,
      { ref: 'e1', text: 'hi', opts: { x: 1, y: 2 } },
      'https://shop.example',
    );
    const b = await approvalDigest(
      D,
      { opts: { y: 2, x: 1 }, text: 'hi', ref: 'e1' },
      'https://shop.example',
    );
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
  });

  it('changes with the tool, the params or the origin', async () => {
    const base = await approvalDigest(D, { ref: 'e1' }, 'https://shop.example');
    expect(await approvalDigest('b'.repeat(64), { ref: 'e1' }, 'https://shop.example')).not.toBe(
      base,
    );
    expect(await approvalDigest(D, { ref: 'e2' }, 'https://shop.example')).not.toBe(base);
    expect(await approvalDigest(D, { ref: 'e1', extra: true }, 'https://shop.example')).not.toBe(
      base,
    );
    expect(await approvalDigest(D, { ref: 'e1' }, 'https://evil.example')).not.toBe(base);
    expect(await approvalDigest(D, { ref: 'e1' }, undefined)).not.toBe(base);
  });

  it('treats undefined members as absent (as JSON does)', async () => {
    expect(await approvalDigest(D, { ref: 'e1', note: undefined }, undefined)).toBe(
      await approvalDigest(D, { ref: 'e1' }, undefined),
    );
  });
});
