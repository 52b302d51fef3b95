import { describe, expect, it } from 'vitest';
import { createAskUserTool } from '../../../src/tools/builtin/ask-user';
import { createTodoTool } from '../../../src/tools/builtin/todo';
import { catalogOf, describeTool, toolSpecs } from '../../../src/tools/registry';
import { expectGolden } from '../protocol/golden';

describe('golden: builtin tools as the model sees them', () => {
  it('freezes the JSON Schema, description and descriptor digest of todo and ask_user (test/fixtures/golden/builtin-tools.json)', async () => {
    const tools = [createTodoTool({ saveTodos: async () => undefined }), createAskUserTool()];
    const catalog = await catalogOf(tools.map((t) => ({ tool: t, descriptor: describeTool(t) })));
    const specs = toolSpecs(catalog);
    for (const s of specs) {
      expect(JSON.stringify(s.inputSchema)).not.toContain('$schema');
      expect(s.inputSchema).toMatchObject({ type: 'object' });
    }
    expectGolden(
      'builtin-tools',
      catalog.map((e, i) => ({
        ...specs[i],
        digest: e.digest,
        descriptor: { ...e.descriptor, inputSchema: '(above)' },
      })),
    );
  });
});
