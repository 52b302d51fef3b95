/**
 * What a thread export adds for an audit (issue 19): each approval with its decision and who made
 * it, and each step with its duration. Pure projections of stored records; the caller redacts
 * the whole export afterwards, so nothing here needs to know about secrets.
 */
import type { ApprovalRecord, NodeRecord } from '../../store/records';

/**
 * Who decided a tool call. `user`: someone answered the approval card. `engine`: the request
 * was withdrawn (the turn was interrupted or the run ended first). `policy`: the call never asked
 * (a read, an allowed site, or the auto approval mode), so the site rules of that moment decided.
 */
export type DecidedBy = 'user' | 'engine' | 'policy';

export interface AuditApproval {
  approvalId: string;
  toolCallId: string;
  tool: string;
  origin?: string;
  url?: string;
  reason?: string;
  options: string[];
  status: ApprovalRecord['status'];
  /** allow_once / allow_site / deny / deny_stop; absent while pending or when withdrawn. */
  decision?: string;
  /** `once` or `site` for an allow (what scope the user granted), else absent. */
  scope?: 'once' | 'site';
  decidedBy?: Exclude<DecidedBy, 'policy'>;
  decisionReason?: string;
  askedAt: number;
  decidedAt?: number;
  /** How long the request waited for its answer. */
  waitedMs?: number;
}

export interface AuditStep {
  nodeId: string;
  kind: NodeRecord['item']['kind'];
  /** The tool, for tool calls. */
  tool?: string;
  startedAt: number;
  endedAt: number;
  /**
   * Model steps: from the node before (the prompt or the last result) to the message. Tool
   * steps: from the call to its result, approval wait included. Other nodes: 0.
   */
  durationMs: number;
  /** Tool steps: how the call ended (ok, error, denied, interrupted…) and who let it run. */
  outcome?: string;
  approvalId?: string;
  decidedBy?: DecidedBy;
}

export function auditApprovals(records: ApprovalRecord[]): AuditApproval[] {
  return records
    .slice()
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((a) => {
      const resolved = a.status === 'resolved';
      const scope =
        a.decision === 'allow_once' ? 'once' : a.decision === 'allow_site' ? 'site' : undefined;
      return {
        approvalId: a.approvalId,
        toolCallId: a.toolCallId,
        tool: a.tool.name,
        ...(a.target.origin ? { origin: a.target.origin } : {}),
        ...(a.target.url ? { url: a.target.url } : {}),
        ...(a.reason ? { reason: a.reason } : {}),
        options: a.options,
        status: a.status,
        ...(resolved && a.decision ? { decision: a.decision } : {}),
        ...(resolved && scope ? { scope } : {}),
        ...(a.status === 'pending'
          ? {}
          : { decidedBy: resolved ? ('user' as const) : ('engine' as const) }),
        ...(a.decisionReason ? { decisionReason: a.decisionReason } : {}),
        askedAt: a.createdAt,
        ...(a.resolvedAt !== undefined
          ? { decidedAt: a.resolvedAt, waitedMs: Math.max(0, a.resolvedAt - a.createdAt) }
          : {}),
      };
    });
}

/** Every node as a step, in creation order, with its duration (see AuditStep). */
export function auditSteps(nodes: NodeRecord[], approvals: ApprovalRecord[]): AuditStep[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const results = new Map<string, NodeRecord>();
  for (const n of nodes) if (n.item.kind === 'tool_result') results.set(n.item.toolCallId, n);
  const approvalOf = new Map(approvals.map((a) => [a.toolCallId, a]));
  return nodes
    .slice()
    .sort((a, b) => a.seq - b.seq)
    .map((n): AuditStep => {
      const item = n.item;
      if (item.kind === 'tool_call') {
        const result = results.get(item.toolCallId);
        const approval = approvalOf.get(item.toolCallId);
        const endedAt = result?.createdAt ?? n.createdAt;
        return {
          nodeId: n.id,
          kind: item.kind,
          tool: item.name,
          startedAt: n.createdAt,
          endedAt,
          durationMs: Math.max(0, endedAt - n.createdAt),
          outcome:
            result && result.item.kind === 'tool_result'
              ? (result.item.outcome ?? (result.item.ok ? 'ok' : 'error'))
              : 'no result',
          ...(approval ? { approvalId: approval.approvalId } : {}),
          decidedBy: !approval ? 'policy' : approval.status === 'resolved' ? 'user' : 'engine',
        };
      }
      if (item.kind === 'assistant_message') {
        const before = n.parentId ? byId.get(n.parentId) : undefined;
        const startedAt = before ? Math.min(before.createdAt, n.createdAt) : n.createdAt;
        return {
          nodeId: n.id,
          kind: item.kind,
          startedAt,
          endedAt: n.createdAt,
          durationMs: n.createdAt - startedAt,
        };
      }
      return {
        nodeId: n.id,
        kind: item.kind,
        startedAt: n.createdAt,
        endedAt: n.createdAt,
        durationMs: 0,
      };
    });
}
