import { z } from 'zod';
import type { AgentTool } from '../types';

const Params = z.object({
  name: z.string().min(1).max(64).describe('The skill name, as listed in the system prompt'),
});
type Params = z.infer<typeof Params>;

/** Load an enabled skill's full instructions (its body is never truncated in context). */
export function createGetSkillTool(deps: {
  loadSkill(runId: string, name: string): Promise<{ name: string; body: string } | null>;
}): AgentTool<Params> {
  return {
    name: 'get_skill',
    label: 'Load skill',
    description:
      'Load the full instructions of one of the skills listed in the system prompt before following it.',
    parameters: Params,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    visibility: 'skill',
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const skill = await deps.loadSkill(ctx.runId, params.name);
      if (!skill)
        throw new Error(
          `No enabled skill is called "${params.name}". Use a name listed under Skills in the system prompt.`,
        );
      return { content: [{ type: 'text', text: `# Skill: ${skill.name}\n\n${skill.body}` }] };
    },
  };
}
