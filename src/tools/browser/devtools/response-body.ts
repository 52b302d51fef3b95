/**
 * browser_network's `bodyOf`: one response body, as the debugger kept it. Clipped to `maxChars`,
 * redacted (redacted-view.ts), inside an untrusted block whose source is the request URL, and
 * labelled plainly when it is from another origin than the tab's: the page fetched it, but it is
 * that other site's content. Binary bodies are not shown.
 */
import { originOf } from '../restricted';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';
import type { DevtoolsCapture } from './devtools-capture';
import { clipText } from './log-page';
import type { NetworkEntry } from './network-entry';
import { type Redactions, redactText } from './redacted-view';

const TEXTUAL =
  /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded|[\w.+-]+\+(json|xml)))|^image\/svg/;

export interface ResponseBodyRequest {
  devtools: DevtoolsCapture;
  tabId: number;
  tabUrl: string;
  /** The tab's request log, already redacted. */
  entries: readonly NetworkEntry[];
  /** A `[id …]` from the list, or an entry number (`12` / `#12`). */
  id: string;
  maxChars: number;
  redactions: Redactions;
}

/** `head` is the account, `body` the untrusted block (empty when nothing is shown). */
export async function responseBodyText(
  req: ResponseBodyRequest,
): Promise<{ head: string; body: string }> {
  const { id } = req;
  const entry = req.entries.find((e) => e.id === id || `#${e.seq}` === id || String(e.seq) === id);
  if (!entry)
    throw new Error(
      `No request with id ${id} in this tab's log. Use an id shown as "[id …]" by browser_network.`,
    );
  if (entry.source === 'timing')
    throw new Error(
      `Request #${entry.seq} was made before the debugger started recording: its body cannot be had. Reload the page (browser_navigate) to record it.`,
    );
  let got: { body: string; base64Encoded: boolean };
  try {
    got = await req.devtools.responseBody(req.tabId, entry.id);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `The body of request #${entry.seq} is not available (${clipText(why, 200)}): it may have failed, been canceled, been a redirect, or been evicted.`,
    );
  }
  const textual = !got.base64Encoded || TEXTUAL.test(entry.mimeType ?? '');
  const origin = originOf(entry.url);
  const tabOrigin = originOf(req.tabUrl);
  const foreign =
    origin && origin !== tabOrigin
      ? ` This body is from another origin (${origin}), not the tab's (${tabOrigin ?? req.tabUrl}).`
      : '';
  const what = `request #${entry.seq} ${entry.method ?? ''} ${entry.url} (${entry.status ?? '?'}, ${entry.mimeType ?? 'unknown type'})`;
  if (!textual) {
    const bytes = Math.floor((got.body.length * 3) / 4);
    return {
      head: `The response body of ${what} is binary (about ${bytes} bytes): not shown.${foreign}`,
      body: '',
    };
  }
  const raw = redactText(got.base64Encoded ? decodeBase64Text(got.body) : got.body, req.redactions);
  const cut =
    raw.length > req.maxChars ? ` Truncated to ${req.maxChars} of ${raw.length} characters.` : '';
  return {
    head: `Response body of ${what}.${foreign}${cut}`,
    body: `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(entry.url, clipText(raw, req.maxChars))}`,
  };
}

function decodeBase64Text(b64: string): string {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
