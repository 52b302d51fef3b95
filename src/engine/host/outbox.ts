import type { AgentEvent } from '../../protocol';
import type { NodeRecord } from '../../store/records';

/**
 * What a transaction tells clients, held until it commits (docs/architecture.md "The outbox").
 * Everything a commit writes that the panel must see (its nodes, its run's new state, an
 * approval card) is put here inside the commit's function; `ctx.commit` sends it, in the order it
 * was put, only after the transaction committed. A commit that throws or aborts sends nothing, so
 * no client ever sees a write that recovery will not find.
 */
export class Outbox {
  private readonly entries: Array<{ node: NodeRecord } | { event: AgentEvent }> = [];

  /** An event to send once the transaction committed. */
  emit(event: AgentEvent): void {
    this.entries.push({ event });
  }

  /**
   * A node written (or updated in place) by the transaction. Its `item.complete` is built when
   * the outbox is sent, so a node updated again later in the same commit is sent as it was stored.
   */
  node(n: NodeRecord): void {
    this.entries.push({ node: n });
  }

  /** The events, in order; nodes the panel never shows (internal tools) are left out. */
  drain(): AgentEvent[] {
    const out: AgentEvent[] = [];
    for (const e of this.entries.splice(0)) {
      if ('event' in e) out.push(e.event);
      else {
        const ev = itemEvent(e.node);
        if (ev) out.push(ev);
      }
    }
    return out;
  }
}

/** A committed node as clients see it: `item.complete` (they upsert by id); none when internal. */
export function itemEvent(n: NodeRecord): AgentEvent | undefined {
  const vis = (n.item as { visibility?: string }).visibility;
  if ((n.item.kind === 'tool_call' || n.item.kind === 'tool_result') && vis === 'internal')
    return undefined;
  return { type: 'item.complete', threadId: n.threadId, item: n.item };
}

/** Send what an op's transaction put aside for after its ack (`done(outcome, after)`). */
export function sendOutbox(ctx: { emit(ev: AgentEvent): void }, out: Outbox): void {
  for (const ev of out.drain()) ctx.emit(ev);
}
