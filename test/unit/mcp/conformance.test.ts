import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const runner = resolve(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance) against Keel's MCP
 * client, through scripts/mcp-conformance-client.ts (the same src/tools/mcp code the extension
 * runs). The scenarios that apply to a Streamable HTTP client without OAuth.
 */
describe('MCP conformance (client scenarios)', () => {
  for (const scenario of ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry']) {
    it(scenario, async () => {
      const { stdout: out, stderr } = await run(process.execPath, [runner, 'client', '--command', `${process.execPath} ${resolve(root, 'node_modules/tsx/dist/cli.mjs')} scripts/mcp-conformance-client.ts`, '--scenario', scenario, '--timeout', '60000'], { cwd: root, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }).catch((e: { stdout?: string; stderr?: string; message: string }) => ({ stdout: e.stdout ?? e.message, stderr: e.stderr ?? '' }));
      // The runner prints its summary on stderr and its checks on stdout.
      const stdout = `${out}\n${stderr}`;
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(stdout);
      expect(summary, stdout.slice(-2000)).not.toBeNull();
      expect(stdout).toContain('OVERALL: PASSED');
      expect(Number(summary![3])).toBe(0);
    }, 100_000);
  }
});
