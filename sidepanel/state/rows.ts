import type { BranchPoint, Item, ToolCallItem, ToolResultItem, Usage } from '../../src/protocol';

/** One visible entry of the conversation. Built once per path change, not per delta. */
export interface Row {
  item: Item;
  /** The node before this one on the path: where an edited user message branches from. */
  parentId: string | null;
  /** For a tool call: its result, shown inside the same card. */
  result?: ToolResultItem;
  /** Set when history forks at this item: the siblings the user can switch to. */
  branch?: BranchPoint;
  /** Set on the last row of a turn: the turn's summed usage. */
  turnUsage?: { usage: Usage; costUsd?: number };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0),
    reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0),
  };
}

/** A turn starts at a user message that was not steered into a running turn. */
function startsTurn(item: Item): boolean {
  return item.kind === 'user_message' && !item.steered;
}

/**
 * The path → rows: internal tool calls (todo) and their results disappear (the todo card shows
 * them), results fold into their call's card, branch points attach to the selected child, and the
 * last row of each turn carries that turn's usage.
 */
export function buildRows(path: Item[], branches: BranchPoint[]): Row[] {
  const calls = new Map<string, ToolCallItem>();
  const results = new Map<string, ToolResultItem>();
  for (const item of path) {
    if (item.kind === 'tool_call') calls.set(item.toolCallId, item);
    else if (item.kind === 'tool_result') results.set(item.toolCallId, item);
  }
  const branchAt = new Map<string, BranchPoint>();
  for (const bp of branches) if (bp.childIds.length > 1) branchAt.set(bp.selected, bp);

  const rows: Row[] = [];
  // Held in an object so the closure and the loop see the same value (and TS narrows neither).
  const acc: { turn: { usage: Usage; costUsd?: number } | null } = { turn: null };
  const closeTurn = () => {
    if (acc.turn && rows.length > 0)
      rows[rows.length - 1] = { ...rows[rows.length - 1], turnUsage: acc.turn };
    acc.turn = null;
  };

  for (let index = 0; index < path.length; index++) {
    const item = path[index];
    if (startsTurn(item)) closeTurn();
    if (item.kind === 'assistant_message' && item.usage) {
      const prev = acc.turn;
      acc.turn = {
        usage: prev ? addUsage(prev.usage, item.usage) : item.usage,
        costUsd:
          item.costUsd !== undefined || prev?.costUsd !== undefined
            ? (prev?.costUsd ?? 0) + (item.costUsd ?? 0)
            : undefined,
      };
    }
    if (item.kind === 'tool_call' && item.visibility === 'internal') continue;
    if (item.kind === 'tool_result') {
      if (item.visibility === 'internal') continue;
      const call = calls.get(item.toolCallId);
      if (call) continue; // shown inside the call's card (or hidden with an internal call)
    }
    const row: Row = { item, parentId: index > 0 ? path[index - 1].id : null };
    if (item.kind === 'tool_call') row.result = results.get(item.toolCallId);
    const bp = branchAt.get(item.id);
    if (bp) row.branch = bp;
    rows.push(row);
  }
  closeTurn();
  return rows;
}
