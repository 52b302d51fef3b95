import type { Decision } from '../src/protocol';

/**
 * Asks Chrome for the optional `debugger` permission when the user allows an L2 (trusted input)
 * action, the first time (later calls resolve at once, without a prompt). Chrome accepts
 * chrome.permissions.request only from an extension page during a user gesture, so this must be
 * called synchronously in the click (or key) handler, before any `await`. The worker checks the
 * permission again when the tool runs and tells the model if it is missing
 * (src/tools/browser/debugger-permission.ts), so a denied or failed request is not an error here.
 *
 * Returns undefined when the decision needs no permission, else whether Keel now holds it.
 */
export function requestDebuggerFor(
  level: string,
  decision: Decision,
): Promise<boolean> | undefined {
  if (level !== 'L2' || (decision !== 'allow_once' && decision !== 'allow_site')) return undefined;
  const request = globalThis.chrome?.permissions?.request;
  if (!request) return Promise.resolve(false);
  try {
    return chrome.permissions.request({ permissions: ['debugger'] }).catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}
