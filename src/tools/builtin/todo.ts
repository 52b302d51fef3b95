import { z } from 'zod';
import type { Todo } from '../../protocol';
import type { AgentTool } from '../types';

const TodoParams = z.object({
  todos: z
    .array(
      z.object({
        id: z.string().min(1).max(40).optional().describe('Stable id; omit for a new item'),
        text: z.string().min(1).max(500),
        status: z.enum(['pending', 'in_progress', 'done']),
      }),
    )
    .max(50)
    .describe('The complete, updated list. Items left out are removed.'),
});
type TodoParams = z.infer<typeof TodoParams>;

/**
 * The plan of a multi-step task. Visibility `internal` (spec/003): its calls produce no tool
 * cards; the list reaches the UI only through `todo.updated` (via `saveTodos`).
 */
export function createTodoTool(deps: {
  saveTodos(threadId: string, todos: Todo[]): Promise<void>;
}): AgentTool<TodoParams> {
  return {
    name: 'todo',
    label: 'Plan',
    description:
      'Keep a short checklist for a task with several steps. Send the whole list each time; mark one item in_progress while you work on it and done when finished. Skip it for simple one-step requests.',
    parameters: TodoParams,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    visibility: 'internal',
    skipApproval: true,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const todos: Todo[] = params.todos.map((t, i) => ({
        id: t.id ?? `t${i + 1}`,
        text: t.text,
        status: t.status,
      }));
      await deps.saveTodos(ctx.threadId, todos);
      const open = todos.filter((t) => t.status !== 'done').length;
      const lines = todos.map(
        (t) =>
          `[${t.status === 'done' ? 'x' : t.status === 'in_progress' ? '~' : ' '}] ${t.id}: ${t.text}`,
      );
      return {
        content: [{ type: 'text', text: `Plan updated (${open} open):\n${lines.join('\n')}` }],
      };
    },
  };
}
