/**
 * Readers shared by the one-line summaries: what a call's parameters and a result's `details`
 * say about the target (an element's name, a page, a URL), read defensively because both come
 * from the engine as `unknown` and `details` differs per tool. Pure; no locale here.
 */

export type Rec = Record<string, unknown>;

export const rec = (v: unknown): Rec =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() ? v : undefined;
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** One line, at most `max` characters: page text and typed text can be long or multi-line. */
export function clip(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `https://www.shop.example/cart/` → `shop.example/cart`: what a person recognises. */
export function displayUrl(url: string, max = 60): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return clip(url, max);
    const host = u.host.replace(/^www\./, '');
    const path = `${u.pathname}${u.search}`.replace(/\/$/, '');
    return clip(`${host}${path}`, max);
  } catch {
    return clip(url, max);
  }
}

/** `- textbox "Quantity" [ref=e2] …` (the snapshot line format) → role and name. */
export function parseElementLine(line: string): { role: string; name: string } | null {
  const m = /^-\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?\s+\[ref=/.exec(line);
  return m ? { role: m[1], name: (m[2] ?? '').replace(/\\(.)/g, '$1') } : null;
}

/** The element a result acted on: `details.target`, else its snapshot line. */
export function elementOf(details: Rec): { role: string; name: string } | null {
  const target = rec(details.target);
  const role = str(target.role);
  if (role !== undefined) return { role, name: str(target.name) ?? '' };
  const line = str(details.element);
  return line ? parseElementLine(line) : null;
}

/** A password field: what was typed into it is never repeated on a card. */
export function isSecretField(details: Rec): boolean {
  return /\[type=password\]/.test(str(details.element) ?? '');
}

/**
 * How a line names an element: its accessible name, else its role, else the model's ref, else
 * null (the caller words it without a target).
 */
export function elementLabel(
  el: { role: string; name: string } | null,
  ref: unknown,
): string | null {
  if (el?.name.trim()) return clip(el.name, 48);
  const r = str(ref);
  if (el?.role && el.role !== 'clickable') return r ? `${el.role} ${r}` : el.role;
  return r ?? null;
}

/** Typed text as a card quotes it: clipped, one line; secrets masked. */
export function quotedText(text: string, secret: boolean): string {
  return secret ? '••••••' : clip(text, 40);
}

/** A file's name from a path or a generated file spec. */
export function fileNames(params: Rec): string[] {
  const fromPaths = strings(params.paths).map((p) => p.split(/[\\/]/).pop() ?? p);
  const fromFiles = Array.isArray(params.files)
    ? params.files.map((f) => str(rec(f).name) ?? '').filter(Boolean)
    : [];
  return [...fromPaths, ...fromFiles];
}
