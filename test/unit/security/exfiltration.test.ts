/**
 * The data-in-URL check (restricted.ts exfiltrationRisk) against the ways around it the review
 * found: data split into short segments, same-origin open redirects, userinfo. Payloads are
 * generated (fast-check): any secret encoded as base64 or hex and split into segments asks; a
 * readable path on another site does not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyElementRisk } from '../../../src/tools/browser/element-target';
import { exfiltrationRisk } from '../../../src/tools/browser/restricted';

const FROM = 'https://mail.example/inbox/42';

// Secrets are random-looking bytes (tokens, ciphertext): drawn from a seeded xorshift stream,
// so shrinking cannot walk towards runs of zeros that carry no information at all.
const secret = fc
  .tuple(fc.integer({ min: 1 }), fc.integer({ min: 18, max: 60 }))
  .map(([seed, n]) => {
    let x = seed | 0 || 1;
    return Uint8Array.from({ length: n }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xff;
    });
  });
const textSecret = fc.constantFrom(
  'my password is hunter2',
  'alice@example.com 4242 4242 4242 4242',
  'session=9f8a7b6c5d4e3f2a1b0c',
  'Dear Bob, the merger closes Friday',
);
const toB64 = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const toHex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const split = (s: string, size: number) => s.match(new RegExp(`.{1,${size}}`, 'g'))!.join('/');

describe('data in the URL', () => {
  it('asks for any encoded secret split into short path segments on another site', () => {
    fc.assert(
      fc.property(secret, fc.boolean(), fc.integer({ min: 2, max: 12 }), (bytes, hex, size) => {
        const data = hex ? toHex(bytes) : toB64(bytes);
        const url = `https://evil.example/${split(data, size)}`;
        expect(exfiltrationRisk(FROM, url), url).toMatch(/another site/);
      }),
      // Seeded: the check is a heuristic with a measured miss rate (below), so a random seed
      // would make CI flaky; fast-check prints the seed and the shrunk case of a failure.
      { numRuns: 200, seed: 1213 },
    );
  });

  it('catches at least 99.9 % of random base64 and hex secrets (18–60 bytes, 2–12-char segments)', () => {
    // A deterministic sample, so the figure is the same on every run.
    const sample = fc.sample(fc.tuple(secret, fc.boolean(), fc.integer({ min: 2, max: 12 })), {
      numRuns: 20_000,
      seed: 42,
    });
    const missed = sample.filter(([bytes, hex, size]) => {
      const data = hex ? toHex(bytes) : toB64(bytes);
      return !exfiltrationRisk(FROM, `https://evil.example/${split(data, size)}`);
    });
    expect(
      missed.length / sample.length,
      `missed ${missed.length} of ${sample.length}`,
    ).toBeLessThan(0.001);
  });

  it('asks for text secrets encoded into the path', () => {
    fc.assert(
      fc.property(textSecret, fc.boolean(), fc.integer({ min: 3, max: 12 }), (text, hex, size) => {
        const bytes = new TextEncoder().encode(text);
        const url = `https://evil.example/${split(hex ? toHex(bytes) : toB64(bytes), size)}`;
        expect(exfiltrationRisk(FROM, url), url).toMatch(/another site/);
      }),
      { numRuns: 100, seed: 1214 },
    );
  });

  it('does not ask for readable paths on another site', () => {
    for (const path of [
      'docs/getting-started/installation',
      'wiki/United_States_Declaration_of_Independence',
      'products/laptops/thinkpad-x1-carbon-gen-11',
      '2024/05/how-to-make-bread-at-home',
      'questions/12345678/how-do-i-centre-a-div',
    ]) {
      expect(exfiltrationRisk(FROM, `https://other.example/${path}`), path).toBeUndefined();
    }
  });

  it('asks for too many segments or a long path, however short each segment is', () => {
    expect(exfiltrationRisk(FROM, `https://evil.example/${'a/b/c/d/e/f/g/h/i/j'}`)).toMatch(
      /many path segments/,
    );
    expect(
      exfiltrationRisk(FROM, `https://evil.example/${Array(20).fill('words-here').join('/')}`),
    ).toMatch(/another site/);
  });

  it('asks for userinfo in the address, on any site', () => {
    expect(exfiltrationRisk(FROM, 'https://bob:hunter2@evil.example/')).toMatch(/credentials/);
    expect(exfiltrationRisk(FROM, 'https://token@mail.example/inbox')).toMatch(/credentials/);
  });

  it('asks for same-origin open redirects to another site, however the address is encoded', () => {
    for (const url of [
      'https://mail.example/redirect?u=https://evil.example/?d=secret',
      'https://mail.example/redirect?u=https%3A%2F%2Fevil.example%2F%3Fd%3Dsecret',
      'https://mail.example/out#//evil.example/x',
      'https://mail.example/go/https:%2F%2Fevil.example',
    ]) {
      expect(exfiltrationRisk(FROM, url), url).toMatch(
        /another site's address \(https:\/\/evil\.example\)/,
      );
    }
    expect(
      exfiltrationRisk(FROM, 'https://mail.example/login?next=https://mail.example/inbox'),
    ).toBeUndefined();
  });

  it('a same-site link that is an open redirect asks when clicked', () => {
    const el = {
      ref: 'e1',
      tag: 'a',
      role: 'link',
      name: 'x',
      line: '- link',
      box: { x: 0, y: 0, width: 1, height: 1 },
      href: 'https://mail.example/r?to=https://evil.example/?d=1',
    };
    const target = applyElementRisk({ origin: 'https://mail.example', url: FROM }, el, {
      activates: true,
    });
    expect(target.alwaysAsk).toMatch(/another site's address/);
  });
});
