/**
 * Strings the page controls outside its text — `document.title`, the URL, dialog messages — are
 * clipped before they reach the model: a page must not flood the context (or the token budget)
 * through a 1 MB title, and what is shown is counted (snapshot budgets reserve room for it).
 */

/** About 500 characters: a real title or URL fits, a payload does not. */
export const PAGE_STRING_MAX = 500;

export function clipPageString(text: string | undefined, max = PAGE_STRING_MAX): string {
  if (!text) return '';
  const chars = [...text];
  return chars.length > max
    ? `${chars.slice(0, max).join('')}… (${chars.length - max} more characters)`
    : text;
}
