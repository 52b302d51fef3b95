/**
 * Origins the agent may never touch, whatever the user allowed: browser-internal pages, other
 * extensions' pages, the Web Store (extensions must not act on it), and Keel's own pages.
 */
const INTERNAL_SCHEMES = new Set([
  'chrome:',
  'chrome-extension:',
  'chrome-untrusted:',
  'devtools:',
  'edge:',
  'about:',
  'view-source:',
  'chrome-search:',
  'javascript:',
  'data:',
  'blob:',
  'filesystem:',
]);
const WEB_STORE_HOSTS = new Set(['chrome.google.com', 'chromewebstore.google.com']);

export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    if (u.protocol === 'file:') return 'file://';
    return u.origin === 'null' ? `${u.protocol}//` : u.origin;
  } catch {
    return undefined;
  }
}

/** Why a URL is off limits, or null when the agent may act there (subject to permissions). */
export function restrictedReason(url: string | undefined): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'the address is not a valid URL';
  }
  if (INTERNAL_SCHEMES.has(u.protocol))
    return `${u.protocol}// pages are browser-internal or belong to an extension`;
  if (
    WEB_STORE_HOSTS.has(u.hostname) &&
    (u.hostname !== 'chrome.google.com' || u.pathname.startsWith('/webstore'))
  ) {
    return 'the Chrome Web Store cannot be automated by extensions';
  }
  return null;
}

/** Normalize what a user typed as a site ("example.com", "https://example.com/x") to an origin. */
export function normalizeOrigin(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed.startsWith('mcp:')) return trimmed;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.origin;
  } catch {
    return null;
  }
}

/** The permission key of an MCP server (servers are "sites" for the Gatekeeper). */
export function mcpOrigin(serverId: string): string {
  return `mcp:${serverId}`;
}
