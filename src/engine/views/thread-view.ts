import type {
  ApprovalRequest,
  BranchPoint,
  InteractionRequest,
  Item,
  RunSummary,
  ThreadMeta,
  ThreadSnapshot,
} from '../../protocol';
import type {
  ApprovalRecord,
  InteractionRecord,
  NodeRecord,
  RunRecord,
  ThreadRecord,
} from '../../store/records';
import { pathFrom } from '../../store/threads-repo';
import type { Store } from '../../store/store';

/** Projections of stored records onto what the UI sees (PROTOCOL.md). Pure functions. */

export function threadMeta(t: ThreadRecord, run?: RunRecord): ThreadMeta {
  return {
    threadId: t.threadId,
    title: t.title,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    leafId: t.leafId,
    ...(t.parentThreadId ? { parentThreadId: t.parentThreadId } : {}),
    ...(run ? { runState: run.state } : {}),
    ...(t.planFirst !== undefined ? { planFirst: t.planFirst } : {}),
    ...(t.enabledSkills ? { enabledSkills: t.enabledSkills } : {}),
    usage: t.usage,
    costUsd: t.costUsd,
  };
}

/** Internal tools (todo) leave no tool-call items for the UI (spec/003). */
export function isVisible(item: Item): boolean {
  return !(
    (item.kind === 'tool_call' || item.kind === 'tool_result') &&
    (item as { visibility?: string }).visibility === 'internal'
  );
}

export function approvalEvent(a: ApprovalRecord): ApprovalRequest {
  return {
    type: 'approval.request',
    threadId: a.threadId,
    runId: a.runId,
    approvalId: a.approvalId,
    toolCallId: a.toolCallId,
    tool: a.tool,
    params: a.params,
    target: {
      ...(a.target.tabId !== undefined ? { tabId: a.target.tabId } : {}),
      ...(a.target.url ? { url: a.target.url } : {}),
      ...(a.target.origin ? { origin: a.target.origin } : {}),
      ...(a.target.title ? { title: a.target.title } : {}),
      ...(a.target.serverId ? { serverId: a.target.serverId } : {}),
      ...(a.target.favIconUrl ? { favIconUrl: a.target.favIconUrl } : {}),
      ...(a.target.element ? { element: a.target.element } : {}),
      ...(a.target.topOrigin
        ? { topOrigin: a.target.topOrigin, ...(a.target.topUrl ? { topUrl: a.target.topUrl } : {}) }
        : {}),
    },
    options: a.options,
    ...(a.reason ? { reason: a.reason } : {}),
  };
}

export function interactionEvent(i: InteractionRecord): InteractionRequest {
  return {
    type: 'interaction.request',
    threadId: i.threadId,
    runId: i.runId,
    interactionId: i.interactionId,
    kind: i.kind,
    payload: i.payload,
  };
}

export function runSummary(
  run: RunRecord,
  approval?: ApprovalRecord,
  interaction?: InteractionRecord,
): RunSummary {
  return {
    runId: run.runId,
    turnId: run.turnId,
    state: run.state,
    ...(run.stopReason ? { stopReason: run.stopReason } : {}),
    ...(approval ? { pendingApproval: approvalEvent(approval) } : {}),
    ...(interaction ? { pendingInteraction: interactionEvent(interaction) } : {}),
    ...(run.state === 'paused_uncertain' && run.pendingTool
      ? { uncertainToolCallId: run.pendingTool.toolCallId }
      : {}),
    ...(run.takeOver ? { takeOverRequested: true } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** Where the tree forks along the current path, with the newest leaf under each sibling. */
export function branchPoints(nodes: NodeRecord[], path: NodeRecord[]): BranchPoint[] {
  const children = new Map<string | null, NodeRecord[]>();
  for (const n of nodes) {
    const list = children.get(n.parentId) ?? [];
    list.push(n);
    children.set(n.parentId, list);
  }
  const newestLeaf = (start: NodeRecord): string => {
    let cur = start;
    for (;;) {
      const kids = children.get(cur.id);
      if (!kids?.length) return cur.id;
      cur = kids.reduce((a, b) => (b.seq > a.seq ? b : a));
    }
  };
  const out: BranchPoint[] = [];
  for (const node of path) {
    const siblings = (children.get(node.parentId) ?? []).slice().sort((a, b) => a.seq - b.seq);
    if (siblings.length > 1) {
      out.push({
        parentId: node.parentId,
        childIds: siblings.map((s) => s.id),
        selected: node.id,
        leafIds: siblings.map(newestLeaf),
      });
    }
  }
  return out;
}

/** One consistent snapshot of a thread, read in a single read transaction. */
export async function threadSnapshot(
  store: Store,
  threadId: string,
): Promise<ThreadSnapshot | null> {
  return store.read(async () => {
    const t = await store.threads.get(threadId);
    if (!t) return null;
    const nodes = await store.threads.allNodes(threadId);
    const path = t.leafId ? pathFrom(nodes, t.leafId) : [];
    const current = await store.runs.current(threadId);
    const run = current ?? (await store.runs.latest(threadId));
    let approval: ApprovalRecord | undefined;
    let interaction: InteractionRecord | undefined;
    if (current?.state === 'waiting_approval')
      approval = (await store.approvals.pendingForRun(current.runId))[0];
    if (current?.state === 'waiting_interaction')
      interaction = (await store.interactions.pendingForRun(current.runId))[0];
    const queued = await store.runs.queued(threadId);
    return {
      thread: threadMeta(t, current),
      path: path.map((n) => n.item).filter(isVisible),
      ...(run ? { run: runSummary(run, approval, interaction) } : {}),
      queue: queued.map((r) => ({ queueItemId: r.runId, input: r.input ?? { text: '' } })),
      todos: t.todos,
      branches: branchPoints(nodes, path),
    };
  });
}
