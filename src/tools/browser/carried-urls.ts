/**
 * The addresses one URL carries inside it (an open redirect's `?u=…`, `#//…`, `/go/https:…`),
 * read the way the browser will read them when a server echoes them into `Location:` or a page
 * assigns them to `location`: the WHATWG URL parser (which Node's `URL` implements, as Chromium
 * does), resolved against the carrying URL. Reading them with a regex for `https://` is what
 * missed the spellings the parser accepts:
 *
 * | carried value          | the browser reads                        | why                                   |
 * |------------------------|------------------------------------------|---------------------------------------|
 * | `/\evil.example/x`     | `https://evil.example/x`                 | `\` is `/` in special (http/s) URLs   |
 * | `http:\\evil.example`  | `http://evil.example/`                   | same                                  |
 * | `/%09/evil.example`    | `https://evil.example/` (once decoded)   | tab and newline are removed anywhere  |
 * | `http:evil.example/x`  | `http://evil.example/x` from an https page, a path on an http one | scheme without slashes |
 * | `evil.example/x`       | a path here; `https://evil.example/x` to a server that adds a scheme | scheme-less host |
 *
 * So each value is read every way a server or page plausibly uses it: resolved against the
 * carrier, parsed on its own, and (when it starts with a host name and a `/` or port) with
 * `https://` in front. Only http(s) readings count: `javascript:` and `mailto:` are not places.
 */

/** A host name with a letter TLD, or an IPv4 address or `localhost`, then a port or a path. */
const SCHEMELESS_HOST =
  /^(?:(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d+)?(?:[/?#\\]|:\d+$)/i;

/** A value's strings: as it stands and once more percent-decoded (double-encoded redirects). */
function decodings(raw: string): string[] {
  const out = [raw];
  try {
    const once = decodeURIComponent(raw);
    if (once !== raw) out.push(once);
  } catch {
    // not valid percent-encoding: the browser keeps it as it is too
  }
  return out;
}

function parse(value: string, base?: URL): URL | undefined {
  try {
    const u = base ? new URL(value, base) : new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** Every http(s) address `value` can be read as, in the context of the URL `carrier`. */
export function readingsOf(value: string, carrier: URL): URL[] {
  const out: URL[] = [];
  for (const v of decodings(value)) {
    const trimmed = v.trim();
    if (!trimmed) continue;
    const relative = parse(trimmed, carrier);
    // A plain word resolves to a path of the carrier: that is not an address being carried.
    if (relative) out.push(relative);
    const standalone = parse(trimmed);
    if (standalone) out.push(standalone);
    if (SCHEMELESS_HOST.test(trimmed)) {
      const withScheme = parse(`https://${trimmed}`);
      if (withScheme) out.push(withScheme);
    }
  }
  return out;
}

/** The pieces of a URL a redirect or a script can take an address from. */
function carrierValues(u: URL): string[] {
  const values = [...u.searchParams.values()];
  if (u.hash.length > 1) values.push(u.hash.slice(1));
  const segments = u.pathname.split('/');
  // `/go/https:%2F%2Fevil.example` and `/out/https://evil.example/x` (the `//` splits it):
  // each segment, and each tail of the path from a segment that names a scheme.
  for (let i = 0; i < segments.length; i++) {
    if (!segments[i]) continue;
    values.push(segments[i]);
    if (/^[a-z][a-z0-9+.-]*:/i.test(decodings(segments[i]).at(-1) ?? ''))
      values.push(segments.slice(i).join('/'));
  }
  return values;
}

/**
 * The first address `u` carries that leads to another origin than `u` itself and than `from`
 * (the page the navigation starts on), or undefined. `u`'s own origin and the page's are not
 * a risk: `/login?next=/inbox` and `?next=https://mail.example/inbox` stay where they are.
 */
export function carriedForeignUrl(u: URL, from: string | undefined): URL | undefined {
  for (const value of carrierValues(u)) {
    for (const reading of readingsOf(value, u)) {
      if (reading.origin !== u.origin && reading.origin !== from) return reading;
    }
  }
  return undefined;
}
