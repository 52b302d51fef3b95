/**
 * Pages the browser tools must never read or act on, and navigations that always need the
 * user's approval. The Gatekeeper denies a call whose target is `forbidden` and asks for one
 * with `alwaysAsk`, whatever the site rules say.
 */

import { carriedForeignUrl } from './carried-urls';

export interface RestrictionEnv {
  fileSchemeAccess: boolean;
  extensionOrigin: string;
}

const BROWSER_SCHEMES = new Set([
  'chrome:',
  'chrome-untrusted:',
  'chrome-search:',
  'chrome-native:',
  'chrome-error:',
  'devtools:',
  'edge:',
  'brave:',
  'opera:',
  'vivaldi:',
  'view-source:',
  'chrome-extension:',
  'moz-extension:',
  'extension:',
]);

const STORE_HOSTS: Array<[string, string]> = [
  ['chromewebstore.google.com', '/'],
  ['chrome.google.com', '/webstore'],
  ['microsoftedge.microsoft.com', '/addons'],
];

/** Why page tools cannot run on this URL, or undefined when they can. */
export function pageRestriction(url: string, env: RestrictionEnv): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a valid URL`;
  }
  if (u.protocol === 'chrome-extension:' && url.startsWith(env.extensionOrigin)) {
    return "this is the extension's own page";
  }
  if (BROWSER_SCHEMES.has(u.protocol))
    return `browser-internal page (${u.protocol}//) — the agent may not read or act on it`;
  if (u.protocol === 'file:') {
    return env.fileSchemeAccess
      ? undefined
      : 'local file page: enable "Allow access to file URLs" for this extension in chrome://extensions first';
  }
  if (u.protocol === 'about:')
    return u.href === 'about:blank' ? undefined : 'browser-internal page (about:)';
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `unsupported page type (${u.protocol})`;
  for (const [host, path] of STORE_HOSTS) {
    if (u.hostname === host && u.pathname.startsWith(path))
      return 'the extension store: extensions may not script it';
  }
  return undefined;
}

/** Why the agent may not navigate to this URL (javascript:, data:, browser pages…). */
export function navigationRestriction(url: string, env: RestrictionEnv): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a valid absolute URL (include https://)`;
  }
  if (u.protocol === 'javascript:') return 'javascript: URLs run code in the page';
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'filesystem:')
    return `${u.protocol} URLs cannot be opened by the agent`;
  return pageRestriction(url, env);
}

/** Bits per character of a string's own character distribution (Shannon entropy). */
export function entropyBits(text: string): number {
  if (!text) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = [...text].length;
  for (const c of counts.values()) bits -= (c / n) * Math.log2(c / n);
  return bits;
}

/** Thresholds of the data-in-URL check: a normal path is short, has few segments and reads as words. */
const EXFIL = {
  segmentChars: 64,
  pathChars: 120,
  segments: 8,
  encodedMinChars: 16,
  entropyBits: 4.4,
  classChanges: 0.4,
  relativeEntropy: 0.9,
  mixedClassChanges: 0.25,
  caseShare: 0.25,
  hashChars: 64,
} as const;

/** Share of adjacent characters that switch between lower case, upper case and digits. */
export function classChangeRate(text: string): number {
  const cls = (c: string) => (/[a-z]/.test(c) ? 1 : /[A-Z]/.test(c) ? 2 : /\d/.test(c) ? 3 : 0);
  let changes = 0;
  for (let i = 1; i < text.length; i++) if (cls(text[i]) !== cls(text[i - 1])) changes++;
  return text.length > 1 ? changes / (text.length - 1) : 0;
}

/**
 * Whether joined path characters read as encoded data rather than words. Short strings cannot
 * reach base64's 6 bits a character, so entropy is also judged against its maximum for the
 * length; and random base64 mixes capitals and small letters in about equal shares, which words,
 * slugs and camel case do not (test/unit/security/exfiltration.test.ts measures the catch rate).
 */
function looksEncoded(letters: string): boolean {
  if (classChangeRate(letters) > EXFIL.classChanges || entropyBits(letters) > EXFIL.entropyBits)
    return true;
  const relative = entropyBits(letters) / Math.log2(Math.min(letters.length, 64));
  if (relative > EXFIL.relativeEntropy && classChangeRate(letters) > EXFIL.mixedClassChanges)
    return true;
  const upper = (letters.match(/[A-Z]/g)?.length ?? 0) / letters.length;
  const lower = (letters.match(/[a-z]/g)?.length ?? 0) / letters.length;
  return upper >= EXFIL.caseShare && lower >= EXFIL.caseShare;
}

/** What in `to` looks like data, or undefined. */
function carriedData(to: URL): string | undefined {
  if (to.username || to.password) return 'credentials (user:password@) in the address';
  if (to.search.length > 1) return 'data in the query';
  if (/[=&]/.test(to.hash) || to.hash.length > EXFIL.hashChars) return 'data in the fragment';
  const segments = to.pathname.split('/').filter(Boolean);
  const path = segments.join('/');
  if (segments.some((s) => s.length > EXFIL.segmentChars)) return 'a long path segment';
  if (path.length > EXFIL.pathChars) return 'a long path';
  if (segments.length > EXFIL.segments) return 'many path segments';
  // Data split into short segments still reads as encoded once joined: base64 and hex switch
  // between letters, capitals and digits at about every other character (words and slugs
  // rarely: camel case about one in four), and base64 carries over 4.4 bits a character.
  const letters = path.replace(/[/._~-]/g, '');
  const encoded = letters.length >= EXFIL.encodedMinChars && looksEncoded(letters);
  // Hex of text is mostly digits with a few a–f letters: a long run of them is data too.
  const hexRun = /[0-9a-f]{24,}/i.exec(letters)?.[0];
  if (encoded || (hexRun && (hexRun.match(/\d/g)?.length ?? 0) >= hexRun.length / 3))
    return 'encoded-looking data in the path';
  return undefined;
}

/**
 * A navigation that could carry page content the model read — a classic prompt-injection
 * payload — always asks:
 * - to another site, when its URL carries data: a query, fragment parameters, a long or
 *   high-entropy path (also split into many short segments), or userinfo (`user:pass@`);
 * - to any site (the same one too) with userinfo in it, or carrying an address of another
 *   site (an open redirect: `/redirect?u=https://evil/?d=…`, in any spelling the browser's URL
 *   parser accepts: carried-urls.ts), judged on where it leads.
 */
export function exfiltrationRisk(fromUrl: string | undefined, toUrl: string): string | undefined {
  let to: URL;
  try {
    to = new URL(toUrl);
  } catch {
    return undefined;
  }
  let fromOrigin: string | undefined;
  try {
    fromOrigin = fromUrl ? new URL(fromUrl).origin : undefined;
  } catch {
    fromOrigin = undefined;
  }
  const inner = carriedForeignUrl(to, fromOrigin);
  if (inner) {
    return `opens an address that carries another site's address (${inner.origin}), which may redirect there with data; check it does not carry information from the page`;
  }
  if (to.username || to.password) {
    return `navigates to ${to.origin} with credentials (user:password@) in the address; check it does not carry information from the page`;
  }
  if (fromOrigin === to.origin) return undefined;
  const data = carriedData(to);
  if (!data) return undefined;
  return `navigates to another site (${to.origin}) with data in the URL (${data}); check it does not carry information from the page`;
}

/** `https://example.com` for web URLs, `chrome://settings` style for others. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.origin && u.origin !== 'null') return u.origin;
    if (u.protocol === 'file:') return 'file://';
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}
