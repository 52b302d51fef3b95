import type { Todo } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { useThread } from './panel-context';

const NO_TODOS: Todo[] = [];

/** The agent's plan (the internal `todo` tool, spec/003): its own card, never tool cards. */
export function TodoCard({ threadId }: { threadId: string }) {
  const todos = useThread(threadId, (th) => th?.todos ?? NO_TODOS);
  if (todos.length === 0) return null;
  const done = todos.filter((x) => x.status === 'done').length;
  return (
    <details class="todo-card" open={done < todos.length}>
      <summary>
        <span class="section-title">{t('todoTitle')}</span>
        <span class="todo-progress">{t('todoProgress', done, todos.length)}</span>
      </summary>
      <ul>
        {todos.map((todo) => (
          <li key={todo.id} class={`todo ${todo.status}`}>
            <Icon
              name={
                todo.status === 'done'
                  ? 'check'
                  : todo.status === 'in_progress'
                    ? 'spinner'
                    : 'chevron-right'
              }
            />
            <span>{todo.text}</span>
            <span class="sr-only">
              {todo.status === 'done'
                ? t('todoDone')
                : todo.status === 'in_progress'
                  ? t('todoInProgress')
                  : t('todoPending')}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
