/**
 * Reading an OpenAI Chat Completions request the way a model reads its context: the user's task,
 * and the tool calls made so far with their results, in order.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ToolExchange {
  name: string;
  args: Record<string, unknown>;
  /** The tool message's text ('' while it has none). */
  result: string;
}

export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('\n');
}

/** The first user message: the task (later user messages are steers or image carriers). */
export function taskOf(messages: readonly ChatMessage[]): string {
  return textOf(messages.find((m) => m.role === 'user')?.content);
}

/** Every tool call the assistant made, paired with its result, oldest first. */
export function exchangesOf(messages: readonly ChatMessage[]): ToolExchange[] {
  const results = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, textOf(m.content));
  const out: ToolExchange[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) {
      let args: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(call.function.arguments || '{}');
        if (parsed && typeof parsed === 'object') args = parsed as Record<string, unknown>;
      } catch {
        /* the model's own broken JSON: treat as no arguments */
      }
      out.push({ name: call.function.name, args, result: results.get(call.id) ?? '' });
    }
  }
  return out;
}
