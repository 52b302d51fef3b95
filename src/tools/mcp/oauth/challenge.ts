/**
 * What a refused request means for sign-in (MCP authorization, "Scope challenge handling"):
 * - `renew`: 401, the token is missing, expired or revoked. Refresh it (or fetch a new one with
 *   client credentials) if possible, otherwise the user must sign in.
 * - `step_up`: 403 `insufficient_scope` naming scopes Keel does not hold: sign in again asking
 *   for them (together with the ones already held).
 * - `refused`: 403 for scopes Keel already asked for, or 403 without `insufficient_scope`:
 *   signing in again cannot help, so Keel does not loop (the retry limit).
 * - `none`: not an authorization failure.
 */
export type ChallengeDecision =
  | { kind: 'none' }
  | { kind: 'renew'; scope?: string; resourceMetadataUrl?: string }
  | { kind: 'step_up'; scope: string; resourceMetadataUrl?: string }
  | { kind: 'refused'; reason: string };

export interface Challenge {
  status: number;
  /** Parsed `WWW-Authenticate` (the SDK's `extractWWWAuthenticateParams`). */
  error?: string;
  scope?: string;
  resourceMetadataUrl?: string;
}

export function decideChallenge(c: Challenge, heldScope: string | undefined): ChallengeDecision {
  const meta = c.resourceMetadataUrl ? { resourceMetadataUrl: c.resourceMetadataUrl } : {};
  if (c.status === 401) return { kind: 'renew', ...(c.scope ? { scope: c.scope } : {}), ...meta };
  if (c.status !== 403) return { kind: 'none' };
  if (c.error !== 'insufficient_scope')
    return { kind: 'refused', reason: 'the server refused access (HTTP 403)' };
  const wanted = scopeSet(c.scope);
  const held = scopeSet(heldScope);
  const missing = [...wanted].filter((s) => !held.has(s));
  if (wanted.size === 0 || missing.length === 0) {
    const shown = c.scope && c.scope.length > 200 ? `${c.scope.slice(0, 200)}…` : c.scope;
    return {
      kind: 'refused',
      reason: `the server still reports insufficient scope${shown ? ` (${shown})` : ''} after it was granted`,
    };
  }
  return { kind: 'step_up', scope: unionScopes(heldScope, c.scope), ...meta };
}

export function scopeSet(scope: string | undefined): Set<string> {
  return new Set((scope ?? '').split(/\s+/).filter(Boolean));
}

/** Space-separated union, first-seen order. */
export function unionScopes(...scopes: (string | undefined)[]): string {
  return [...new Set(scopes.flatMap((s) => [...scopeSet(s)]))].join(' ');
}
