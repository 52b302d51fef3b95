import { createAskUserTool } from '../tools/builtin/ask-user';
import { createProposePlanTool } from '../tools/builtin/propose-plan';
import { createRequestTakeoverTool } from '../tools/builtin/request-takeover';
import { createGetSkillTool } from '../tools/builtin/get-skill';
import { createLoadToolsTool } from '../tools/builtin/load-tools';
import { createTodoTool } from '../tools/builtin/todo';
import type { EngineHost } from './turn/engine-host';

/** Register the builtin tools, wiring todo's list to the thread record and `todo.updated`. */
export function registerBuiltins(engine: EngineHost): void {
  const { store, clock, registry } = engine.ctx;
  registry.register(
    createTodoTool({
      async saveTodos(threadId, todos) {
        await engine.ctx.commit('todos', () =>
          store.threads.update(threadId, (t) => {
            t.todos = todos;
            t.updatedAt = clock.now();
          }),
        );
        engine.ctx.emit({ type: 'todo.updated', threadId, todos });
      },
    }),
  );
  registry.register(createAskUserTool());
  registry.register(createRequestTakeoverTool());
  registry.register(createProposePlanTool());
  registry.register(
    createLoadToolsTool({
      // The run's own snapshot: what it can load is what it was offered to load.
      async catalogOf(runId) {
        return (await store.runs.get(runId))?.env?.toolCatalog ?? null;
      },
    }),
  );
  registry.register(
    createGetSkillTool({
      // From the run's snapshot, not the live table: a resumed run sees the skill it started with.
      async loadSkill(runId, name) {
        const run = await store.runs.get(runId);
        const s = run?.env?.skills.find((x) => x.name.toLowerCase() === name.toLowerCase());
        return s ? { name: s.name, body: s.body } : null;
      },
    }),
  );
}
