import { beforeAll, describe, expect, it } from 'vitest';
import { listClientScenarios, runAll, type ScenarioResult } from '../../../scripts/mcp-conformance';

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance, pinned) against Keel's
 * MCP client, through scripts/mcp-conformance-client.ts (the same src/tools/mcp code the extension
 * runs): every client scenario the installed suite lists, OAuth ones included. The scenarios run
 * two at a time once (beforeAll); each gets its own test so a failure names it. A scenario that
 * fails is run once more alone (scripts/mcp-conformance.ts: `sse-retry` is a timing check).
 */
describe('MCP conformance (every client scenario of the pinned suite)', async () => {
  const scenarios = await listClientScenarios();
  const results = new Map<string, ScenarioResult>();

  beforeAll(async () => {
    for (const r of await runAll(scenarios, 2)) {
      results.set(r.scenario, r);
      if (r.retried)
        console.warn(
          `MCP conformance: ${r.scenario} failed once in parallel and passed when run alone`,
        );
    }
  }, 300_000);

  it('the suite lists the scenarios Keel is held to', () => {
    // 0.1.11 lists 23; a newer pin may list more, and all of them must pass too.
    expect(scenarios.length).toBeGreaterThanOrEqual(23);
    expect(scenarios.filter((s) => s.startsWith('auth/')).length).toBeGreaterThanOrEqual(19);
  });

  for (const scenario of scenarios) {
    it(scenario, () => {
      const r = results.get(scenario);
      expect(r, 'the scenario did not run').toBeDefined();
      expect(r!.passed, `${r!.summary}\n${r!.output.slice(-3000)}`).toBe(true);
    });
  }
});
