import type { ApprovalMode, Decision, SiteRule } from '../protocol';
import type { ReceiverEffect, ToolDescriptor, ToolTarget } from '../tools/types';
import { mcpOrigin, restrictedReason } from './origins';
import { type ApprovedPlan, planCovers, writeKindOf } from './plan';

export type Verdict =
  | { kind: 'allow'; reason: string }
  | { kind: 'ask'; reason: string; options: Decision[] }
  | { kind: 'deny'; reason: string };

export const ALL_DECISIONS: Decision[] = ['allow_once', 'allow_site', 'deny', 'deny_stop'];
/** Calls that must always ask cannot be allowed for a whole site. */
const ONCE_ONLY: Decision[] = ['allow_once', 'deny', 'deny_stop'];

export interface VerdictInput {
  descriptor: ToolDescriptor;
  target: ToolTarget;
  /** The rule for the target's permission key (its origin, or mcp:<server>). */
  rule: SiteRule | undefined;
  approvalMode: ApprovalMode;
  /** In 'plan' mode, the plan the user approved for this turn (none yet: writes ask). */
  plan?: ApprovedPlan;
  /** How the call reaches the target: its own input (default), or a destination it leads to. */
  effect?: ReceiverEffect;
  /** The user marked the target site's page tools (WebMCP) as reads (its site rule record). */
  pageToolsRead?: boolean;
}

/** The permission key a call is judged on. */
export function permissionKey(descriptor: ToolDescriptor, target: ToolTarget): string | undefined {
  if (descriptor.level === 'mcp') {
    const server =
      target.serverId ??
      (descriptor.binding.kind === 'mcp' ? descriptor.binding.serverId : undefined);
    return server ? mcpOrigin(server) : undefined;
  }
  return target.origin;
}

/**
 * Whether a permission key names one site a rule may cover: an http(s) origin or an MCP server.
 * `file://`, and the scheme-only keys of pages without a host, stand for every such page at once:
 * "Allow on this site" there would allow them all, so they get no allow rule (and a stored one
 * is ignored).
 */
export function isSiteKey(key: string | undefined): boolean {
  return key !== undefined && (/^https?:\/\/[^/]+$/.test(key) || key.startsWith('mcp:'));
}

/**
 * The Gatekeeper's decision for one call (ARCHITECTURE.md "Gatekeeper"):
 * - never: forbidden targets, browser-internal pages, blocked sites;
 * - always ask: targets flagged alwaysAsk (uploads, downloads, payment-like submits, navigation
 *   carrying page data) — even in 'act' mode and on allowed sites;
 * - reads are allowed. A read is what the page cannot observe: a tool declares `effects: 'read'`
 *   only if running it dispatches nothing the page's scripts can see (no pointer, mouse, focus,
 *   key, scroll, input or drag event, no DOM change). Hover, scroll-to-element and focus are
 *   observed (a page can beacon every mouseenter), so they are declared writes and judged here
 *   like any write. test/e2e/security/observable-reads.test.ts holds every registered tool's
 *   declaration to this against a page that records every event it receives;
 * - builtin tools that are their own confirmation (ask_user) skip approval;
 * - writes ask unless the site has an allow rule. In 'ask' mode an allow rule covers DOM-level
 *   (L1) writes; trusted input through the debugger (L2) still asks each time. 'act' mode lets
 *   the allow rule cover L2 too. MCP tools ask per server unless the server is allowed.
 * - 'plan' mode: a write the approved plan names (its site and kind of write, plan.ts) is
 *   allowed, trusted input included (the user approved the plan knowing what it does); any other
 *   write asks with the reason 'not_in_plan'. Everything above still holds first.
 * - page tools (WebMCP) run only in a document of the origin that offered them: any other target
 *   is denied. They are writes — whatever the page claims (`readOnlyHint`, its description) —
 *   unless the user marked that site's page tools as reads; as writes they follow the rules
 *   above (an allow rule covers them, like any DOM-level write).
 */
export function decideVerdict({
  descriptor,
  target,
  rule: stored,
  approvalMode,
  plan,
  effect = 'input',
  pageToolsRead = false,
}: VerdictInput): Verdict {
  const rule =
    stored === 'allow' && !isSiteKey(permissionKey(descriptor, target)) ? undefined : stored;
  if (target.forbidden) return { kind: 'deny', reason: target.forbidden };
  const restricted = restrictedReason(target.url);
  if (restricted && descriptor.level !== 'builtin' && descriptor.level !== 'mcp') {
    return { kind: 'deny', reason: `Keel never acts on this page: ${restricted}.` };
  }
  if (rule === 'block') {
    return {
      kind: 'deny',
      reason: `The user blocked Keel on ${permissionKey(descriptor, target)}.`,
    };
  }
  if (target.alwaysAsk)
    return { kind: 'ask', reason: `always_ask:${target.alwaysAsk}`, options: ONCE_ONLY };
  const page = pageToolVerdict(descriptor, target, pageToolsRead);
  if (page) return page;
  // A builtin skips approval only by its own declaration (ask_user, todo), never by its level.
  if (descriptor.skipApproval) return { kind: 'allow', reason: 'skip_approval' };
  const planned = approvalMode === 'plan' ? plan : undefined;
  const inPlan = planCovers(
    planned,
    permissionKey(descriptor, target),
    writeKindOf(descriptor, effect),
  );
  if (descriptor.level === 'mcp') {
    if (rule === 'allow') return { kind: 'allow', reason: 'server_allowed' };
    if (inPlan) return { kind: 'allow', reason: 'in_plan' };
    return { kind: 'ask', reason: planned ? 'not_in_plan' : 'mcp', options: ALL_DECISIONS };
  }
  if (descriptor.effects === 'read') return { kind: 'allow', reason: 'read' };
  if (rule === 'allow' && (descriptor.level !== 'L2' || approvalMode === 'act')) {
    return { kind: 'allow', reason: 'site_allowed' };
  }
  if (inPlan) return { kind: 'allow', reason: 'in_plan' };
  return {
    kind: 'ask',
    reason: planned ? 'not_in_plan' : rule === 'allow' ? 'trusted_input' : 'write',
    options: isSiteKey(target.origin) ? ALL_DECISIONS : ONCE_ONLY,
  };
}

/** A page tool's own rules (see decideVerdict); undefined for every other tool, or to judge on. */
function pageToolVerdict(
  descriptor: ToolDescriptor,
  target: ToolTarget,
  pageToolsRead: boolean,
): Verdict | undefined {
  const { binding } = descriptor;
  if (binding.kind !== 'page') return undefined;
  if (target.origin !== binding.origin)
    return {
      kind: 'deny',
      reason: `${descriptor.name} is a tool of ${binding.origin}; the tab is on ${target.origin ?? 'another page'} now.`,
    };
  if (pageToolsRead) return { kind: 'allow', reason: 'page_tools_read' };
  return undefined;
}
