/**
 * The text of the logs as the model may see it, applied BEFORE filtering as well as before
 * output: a filter that matched the raw text would let a model learn a redacted value one guess at
 * a time ("does a message contain `Bearer a`?" → 1 matching). Credentials seen in headers and URL
 * userinfo become `[redacted]`, site secrets their placeholders (the same replacement the wrapper
 * of every browser tool makes on output, secret-redaction.ts). Pure.
 */
import { redactSecrets } from '../../../secrets/site-secrets';
import type { ConsoleEntry } from './console-entry';
import { scrubCredentials } from './credential-redaction';
import type { NetworkEntry } from './network-entry';

export interface Redactions {
  /** Credential values seen in this tab's headers (devtools-capture.ts `credentialsOf`). */
  credentials: ReadonlySet<string>;
  /** Site secrets' values and placeholders. */
  secrets: readonly { placeholder: string; value: string }[];
}

export function redactText(text: string, r: Redactions): string {
  return redactSecrets(scrubCredentials(text, r.credentials), r.secrets);
}

export function redactedConsoleEntry(e: ConsoleEntry, r: Redactions): ConsoleEntry {
  const out: ConsoleEntry = { ...e, text: redactText(e.text, r) };
  if (e.source) out.source = redactText(e.source, r);
  if (e.stack) out.stack = e.stack.map((f) => redactText(f, r));
  return out;
}

export function redactedNetworkEntry(e: NetworkEntry, r: Redactions): NetworkEntry {
  const out: NetworkEntry = { ...e, url: redactText(e.url, r) };
  for (const key of ['requestHeaders', 'responseHeaders'] as const) {
    const headers = e[key];
    if (headers)
      out[key] = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, redactText(value, r)]),
      );
  }
  return out;
}
