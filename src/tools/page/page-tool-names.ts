/**
 * Registered names of page tools (WebMCP): `page_<site>_<tool>`, within the registry's
 * `[a-zA-Z0-9_-]{1,64}` (the strictest provider limit). `<site>` is the origin's host and port
 * with every other character as `_` (`127.0.0.1:8080` → `127_0_0_1_8080`). A page names its tools
 * freely, so a name that is not already valid, or does not fit, is cleaned, clipped and tagged
 * with a hash of (origin, name): the same tool of the same site always gets the same name, which
 * keeps the model's view (and the prompt cache) stable across calls and reloads.
 *
 * The name is for the model; it grants nothing. Two sites whose slugs meet (`a.b` + `c`, `a` +
 * `b_c`) would share a name, but the descriptor binds the origin, so the digest check at dispatch
 * and the Gatekeeper's origin check tell them apart.
 */
import { fnv1a } from '../../util/fnv1a';

export const PAGE_TOOL_PREFIX = 'page_';
const MAX_NAME = 64;
const MAX_SLUG = 24;
const INVALID = /[^a-zA-Z0-9_-]/g;
const VALID = /^[a-zA-Z0-9_-]+$/;

/** `https://www.example.com:8443` → `www_example_com_8443` (clipped to 24 characters). */
export function siteSlug(origin: string): string {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = origin;
  }
  const slug = host.toLowerCase().replace(INVALID, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
  return (slug || 'site').slice(0, MAX_SLUG);
}

export function pageToolName(origin: string, toolName: string): string {
  const prefix = `${PAGE_TOOL_PREFIX}${siteSlug(origin)}_`;
  const plain = prefix + toolName;
  if (toolName && VALID.test(toolName) && plain.length <= MAX_NAME) return plain;
  const tag = fnv1a(`${origin}\u0000${toolName}`);
  const room = MAX_NAME - prefix.length - tag.length - 1;
  const clean = toolName.replace(INVALID, '_').slice(0, room);
  return `${prefix}${clean}_${tag}`;
}

export function isPageToolName(name: string): boolean {
  return name.startsWith(PAGE_TOOL_PREFIX);
}
