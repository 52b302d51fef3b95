import type { PageLook } from '../../store/records';
import { wrapUntrusted } from '../context/untrusted';

/**
 * What the model is told of the page when the user hands it back (issue 28): the tab's URL and
 * title now, and whether they changed since the agent left it. Only that: never what the user
 * typed or clicked (Keel does not watch), so a password typed meanwhile cannot reach the model.
 *
 * The URL and title are written by the page, so they reach the model inside an untrusted block
 * (untrusted.ts); the comparison is Keel's own words, outside it.
 */
export function freshLookText(
  before: PageLook | undefined,
  now: { tabId: number; url: string; title: string } | undefined,
  tabId: number | undefined,
): string {
  const snapshot =
    'Take a browser_snapshot before you act: refs from before the hand-over are likely stale.';
  if (tabId === undefined) return `The page may have changed while the user held it. ${snapshot}`;
  if (!now)
    return `The tab you were working in (${tabId}) is closed or unreachable now. Look at the open tabs (browser_tabs) before you act.`;
  const page = wrapUntrusted(`URL: ${now.url}\nTitle: ${now.title}`, `tab ${tabId} now`);
  if (!before || before.tabId !== tabId)
    return `The tab (${tabId}) now shows:\n${page}\nKeel did not record how it looked before the hand-over, so assume it changed. ${snapshot}`;
  const urlChanged = before.url !== now.url;
  const titleChanged = before.title !== now.title;
  const changed =
    urlChanged || titleChanged
      ? `Since you left it, ${[urlChanged ? 'the URL' : '', titleChanged ? 'the title' : '']
          .filter(Boolean)
          .join(' and ')} changed. When you left it, it was:\n${wrapUntrusted(
          `URL: ${before.url}\nTitle: ${before.title}`,
          `tab ${tabId} before the hand-over`,
        )}`
      : 'Its URL and title are the same as when you left it (its content may still have changed).';
  return `The tab (${tabId}) now shows:\n${page}\n${changed}\n${snapshot}`;
}
