/**
 * Pages the browser tools must never read or act on, and navigations that always need the
 * user's approval. The Gatekeeper denies a call whose target is `forbidden` and asks for one
 * with `alwaysAsk`, whatever the site rules say.
 */

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
  if (BROWSER_SCHEMES.has(u.protocol)) return `browser-internal page (${u.protocol}//) — the agent may not read or act on it`;
  if (u.protocol === 'file:') {
    return env.fileSchemeAccess
      ? undefined
      : 'local file page: enable "Allow access to file URLs" for this extension in chrome://extensions first';
  }
  if (u.protocol === 'about:') return u.href === 'about:blank' ? undefined : 'browser-internal page (about:)';
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `unsupported page type (${u.protocol})`;
  for (const [host, path] of STORE_HOSTS) {
    if (u.hostname === host && u.pathname.startsWith(path)) return 'the extension store: extensions may not script it';
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
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'filesystem:') return `${u.protocol} URLs cannot be opened by the agent`;
  return pageRestriction(url, env);
}

/**
 * A navigation to another site whose URL carries data (query, fragment parameters, long path
 * segments) may be exfiltrating page content the model read — a classic prompt-injection
 * payload. Such navigations always ask.
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
  if (fromOrigin === to.origin) return undefined;
  const hasQuery = to.search.length > 1;
  const hashData = /[=&]/.test(to.hash) || to.hash.length > 64;
  const longSegment = to.pathname.split('/').some((s) => s.length > 64);
  if (!hasQuery && !hashData && !longSegment) return undefined;
  return `navigates to another site (${to.origin}) with data in the URL; check it does not carry information from the page`;
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
