import { buildAnthropicMessages } from '../../src/providers/anthropic/request';
import { buildChatMessages } from '../../src/providers/openai-chat/request';
import type { ProviderMessage } from '../../src/providers/types';

/**
 * What the two provider APIs demand of a conversation, checked on the wire form each adapter
 * builds (not on the engine's own message list): a context that breaks one of these is a request
 * the real API refuses with a 400. `complete` = the conversation is about to be sent, so it must
 * also end on the user's side.
 */
export function wireProblems(messages: readonly ProviderMessage[], complete: boolean): string[] {
  return [...anthropicProblems(messages, complete), ...chatProblems(messages, complete)];
}

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

function anthropicProblems(messages: readonly ProviderMessage[], complete: boolean): string[] {
  const out: string[] = [];
  const wire = buildAnthropicMessages(messages);
  if (wire.length === 0) return complete ? ['anthropic: no messages'] : [];
  if (wire[0].role !== 'user') out.push("anthropic: the first message is not the user's");
  if (complete && wire[wire.length - 1].role !== 'user')
    out.push("anthropic: the last message is not the user's");
  const seen = new Set<string>();
  wire.forEach((m, i) => {
    if (i > 0 && wire[i - 1].role === m.role)
      out.push(`anthropic: two ${m.role} messages in a row at ${i}`);
    const blocks =
      typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    if (blocks.length === 0) out.push(`anthropic: empty ${m.role} message at ${i}`);
    for (const b of blocks) {
      if (b.type === 'text' && b.text.trim() === '')
        out.push(`anthropic: empty text block in message ${i}`);
    }
    if (m.role !== 'assistant') return;
    const uses = blocks.filter((b) => b.type === 'tool_use');
    for (const u of uses) {
      if (!ANTHROPIC_ID.test(u.id))
        out.push(`anthropic: tool_use id "${u.id}" is not [a-zA-Z0-9_-]+`);
      if (seen.has(u.id)) out.push(`anthropic: tool_use id ${u.id} used twice`);
      seen.add(u.id);
    }
    const next = wire[i + 1];
    if (!uses.length) return;
    if (!next) {
      if (complete) out.push(`anthropic: tool_use at ${i} without results`);
      return;
    }
    const nextBlocks = typeof next.content === 'string' ? [] : next.content;
    const results = nextBlocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    const lead = nextBlocks.slice(0, results.length).every((b) => b.type === 'tool_result');
    const ids = uses.map((u) => u.id);
    if (!lead) out.push(`anthropic: tool_result blocks do not lead message ${i + 1}`);
    if ([...ids].sort().join() !== [...results].sort().join())
      out.push(`anthropic: results ${results.join()} do not answer tool_use ${ids.join()}`);
  });
  // Every tool_result answers a tool_use of the message right before it.
  wire.forEach((m, i) => {
    if (m.role !== 'user' || typeof m.content === 'string') return;
    const prev = wire[i - 1];
    const prevIds = new Set(
      prev && typeof prev.content !== 'string'
        ? prev.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
        : [],
    );
    for (const b of m.content)
      if (b.type === 'tool_result' && !prevIds.has(b.tool_use_id))
        out.push(`anthropic: orphan tool_result ${b.tool_use_id} at ${i}`);
  });
  return out;
}

function chatProblems(messages: readonly ProviderMessage[], complete: boolean): string[] {
  const out: string[] = [];
  const wire = buildChatMessages('system', messages);
  let open: Set<string> | null = null;
  wire.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!open || !open.has(m.tool_call_id))
        out.push(`openai: tool message ${m.tool_call_id} at ${i} answers no open call`);
      else open.delete(m.tool_call_id);
      return;
    }
    if (open && open.size)
      out.push(`openai: calls ${[...open].join()} unanswered before message ${i}`);
    open = null;
    if (
      m.role === 'user' &&
      (m.content === '' || (Array.isArray(m.content) && m.content.length === 0))
    )
      out.push(`openai: empty user message at ${i}`);
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      if (m.content == null && !calls.length) out.push(`openai: empty assistant message at ${i}`);
      for (const c of calls) if (!c.id) out.push(`openai: empty tool_call id at ${i}`);
      if (calls.length) open = new Set(calls.map((c) => c.id));
    }
  });
  if (complete && open && (open as Set<string>).size)
    out.push('openai: the conversation ends with unanswered calls');
  if (complete && wire.length && wire[wire.length - 1].role === 'assistant')
    out.push("openai: the last message is the assistant's");
  return out;
}
