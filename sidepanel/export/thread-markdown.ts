/**
 * The readable half of a thread export: the engine's redacted JSON (thread.export) rendered as
 * Markdown — the conversation along the current branch, each tool step as its one-line summary
 * with its duration and who let it run, then every approval with its decision. Pure over the
 * JSON: whatever the engine redacted stays redacted here, and images are left out.
 */
import type { Item } from '../../src/protocol';
import { t, type MessageKey } from '../i18n';
import { rec, str, num } from '../summaries/facts';
import { toolSummary } from '../summaries/tool-summary';

interface ExportNode {
  id: string;
  parentId: string | null;
  item: Item;
  visible?: boolean;
}

const DECISION: Record<string, MessageKey> = {
  allow_once: 'approveAllowOnce',
  allow_site: 'approveAllowSite',
  deny: 'approveDeny',
  deny_stop: 'approveDenyStop',
};

const WHO: Record<string, MessageKey> = {
  user: 'exportByUser',
  engine: 'exportByEngine',
  policy: 'exportByPolicy',
};

/** Seconds with one decimal: step times are for people, not benchmarks. */
export function formatDuration(ms: number): string {
  return t('exportSeconds', (Math.max(0, ms) / 1000).toFixed(1));
}

/** A table cell: one line, pipes escaped. */
const cell = (s: string) => s.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** The nodes from the root to `leafId` (the branch the user sees). */
function currentPath(nodes: ExportNode[], leafId: string | null | undefined): ExportNode[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out: ExportNode[] = [];
  let cur = leafId ? byId.get(leafId) : undefined;
  const seen = new Set<string>();
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    out.push(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return out.reverse();
}

const timeOf = (ms: number | undefined) =>
  ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export function threadMarkdown(exported: unknown): string {
  const root = rec(exported);
  const thread = rec(root.thread);
  const nodes = (Array.isArray(root.nodes) ? root.nodes : []) as ExportNode[];
  const steps = new Map(
    (Array.isArray(root.steps) ? root.steps : []).map((s) => [str(rec(s).nodeId) ?? '', rec(s)]),
  );
  const approvals = (Array.isArray(root.approvals) ? root.approvals : []).map(rec);
  const path = currentPath(nodes, str(thread.leafId));
  const results = new Map<string, Extract<Item, { kind: 'tool_result' }>>();
  for (const n of nodes) if (n.item?.kind === 'tool_result') results.set(n.item.toolCallId, n.item);

  const lines: string[] = [`# ${str(thread.title) ?? t('untitled')}`, ''];
  const cost = num(thread.costUsd);
  lines.push(
    t('exportMeta', timeOf(num(root.exportedAt) ?? Date.now()), String(path.length)) +
      (cost ? ` · $${cost.toFixed(4)}` : ''),
  );
  const redacted = num(root.redactedSecrets) ?? 0;
  if (redacted > 0) lines.push('', `> ${t('exportRedacted', String(redacted))}`);
  lines.push('', `## ${t('exportConversation')}`, '');

  for (const n of path) {
    const item = n.item;
    if (!item || n.visible === false) continue;
    const step = steps.get(n.id);
    const took = num(step?.durationMs);
    if (item.kind === 'user_message') {
      lines.push(`**${t('exportYou')}** · ${timeOf(item.createdAt)}`, '', item.text, '');
    } else if (item.kind === 'assistant_message') {
      const interrupted =
        item.providerStopReason === 'interrupted' ||
        (item as { stopReason?: unknown }).stopReason === 'interrupted';
      // A round that only requested the next tool call says nothing: its step line is enough.
      if (!item.text.trim() && !interrupted) continue;
      const meta = [timeOf(item.createdAt), item.model, took ? formatDuration(took) : '']
        .filter(Boolean)
        .join(' · ');
      lines.push(`**${t('exportAgent')}** · ${meta}`, '');
      if (item.text) lines.push(item.text, '');
      if (interrupted) lines.push(`> ${t('stopInterrupted')}`, '');
    } else if (item.kind === 'tool_call') {
      const result = results.get(item.toolCallId);
      const summary = toolSummary(item, result);
      const what = summary ? t(summary.key, ...summary.subs) : item.label || item.name;
      const who = WHO[str(step?.decidedBy) ?? ''];
      const parts = [
        str(step?.outcome) ?? item.state,
        took !== undefined ? formatDuration(took) : '',
        who ? t(who) : '',
      ].filter(Boolean);
      lines.push(`- ${cell(what)} (\`${item.name}\`) — ${parts.join(' · ')}`, '');
    } else if (item.kind === 'notice') {
      lines.push(`> ${cell(item.text)}`, '');
    }
  }

  lines.push(`## ${t('exportApprovals')}`, '');
  if (approvals.length === 0) lines.push(t('exportNoApprovals'), '');
  else {
    lines.push(
      `| ${[t('exportColWhen'), t('exportColTool'), t('exportColSite'), t('exportColDecision'), t('exportColWho'), t('exportColWaited')].join(' | ')} |`,
      '|---|---|---|---|---|---|',
    );
    for (const a of approvals) {
      const decision = DECISION[str(a.decision) ?? ''];
      const who = WHO[str(a.decidedBy) ?? ''];
      const row = [
        timeOf(num(a.askedAt)),
        `\`${str(a.tool) ?? ''}\``,
        str(a.origin) ?? str(a.url) ?? '',
        decision
          ? t(decision)
          : str(a.status) === 'pending'
            ? t('exportPending')
            : t('exportWithdrawn'),
        who ? t(who) : '',
        num(a.waitedMs) !== undefined ? formatDuration(num(a.waitedMs)!) : '',
      ];
      lines.push(`| ${row.map(cell).join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** A safe file name for the export: the title's letters and digits, else the thread id. */
export function exportFileName(exported: unknown, ext: 'md' | 'json'): string {
  const thread = rec(rec(exported).thread);
  const base =
    (str(thread.title) ?? '')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) ||
    str(thread.threadId) ||
    'thread';
  return `keel-${base}.${ext}`;
}
