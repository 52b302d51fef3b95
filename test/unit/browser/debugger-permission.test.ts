/**
 * The optional `debugger` permission (issue 15): while Keel does not hold it, every L2 tool asks
 * (even where 'act' mode and an allow rule would let it run), and a call that runs anyway touches
 * neither the page nor the debugger and tells the model why, with the L1 alternative. With the
 * permission, the L2 tools behave as before.
 */
import { describe, expect, it } from 'vitest';
import { decideVerdict } from '../../../src/gatekeeper/verdict';
import { createBrowserTools } from '../../../src/tools/browser';
import {
  DEBUGGER_NOT_GRANTED,
  DEBUGGER_PERMISSION_ASK,
} from '../../../src/tools/browser/debugger-permission';
import { DebuggerSessions } from '../../../src/tools/browser/debugger-sessions';
import { describeTool } from '../../../src/tools/registry';
import type { AgentTool, ToolCallContext, ToolResult } from '../../../src/tools/types';
import { FakeHost } from './fake-host';

const ctx: ToolCallContext = { threadId: 't', runId: 'r1', tabId: 1, model: { vision: true } };

/** Valid parameters for each L2 tool (the catalog test below fails if a new L2 tool lacks one). */
const L2_PARAMS: Record<string, Record<string, unknown>> = {
  browser_mouse: { action: 'click', x: 10, y: 20 },
  browser_keyboard: { text: 'hello' },
  browser_dialog: { action: 'accept' },
  browser_upload_file: { ref: 'e5', files: [{ name: 'a.txt', text: 'a' }] },
};

const L1_ALTERNATIVE: Record<string, RegExp> = {
  browser_mouse: /browser_click/,
  browser_keyboard: /browser_type/,
  browser_dialog: /ask the user/,
  browser_upload_file: /ask the user/,
};

function setup(granted: boolean) {
  const host = new FakeHost();
  host.debuggerGranted = granted;
  host.addTab({ tabId: 1, url: 'https://shop.example/cart', title: 'Cart' });
  const { tools } = createBrowserTools(host, { thumbnails: false });
  const l2 = tools.filter((t) => t.level === 'L2') as AgentTool<Record<string, unknown>>[];
  return { host, tools, l2 };
}

const textOf = (r: ToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

describe('L2 tools without the debugger permission', () => {
  it('the catalog has parameters here for every L2 tool', () => {
    expect(
      setup(false)
        .l2.map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(L2_PARAMS).sort());
  });

  it('every L2 call asks, even in act mode on an allowed site', async () => {
    const { l2 } = setup(false);
    for (const tool of l2) {
      const params = tool.parameters.parse(L2_PARAMS[tool.name]) as Record<string, unknown>;
      const target = await tool.resolveTarget?.(params, ctx);
      expect(target?.alwaysAsk, tool.name).toBeTruthy();
      const descriptor = describeTool(tool as AgentTool);
      const verdict = decideVerdict({
        descriptor,
        target: target!,
        rule: 'allow',
        approvalMode: 'act',
      });
      expect(verdict.kind, tool.name).toBe('ask');
    }
  });

  it('a call that runs anyway touches nothing and names the alternative', async () => {
    const { host, l2 } = setup(false);
    for (const tool of l2) {
      const params = tool.parameters.parse(L2_PARAMS[tool.name]) as Record<string, unknown>;
      const result = await tool.execute(
        'id',
        params,
        new AbortController().signal,
        () => undefined,
        ctx,
      );
      expect(result.isError, tool.name).toBe(true);
      const text = textOf(result);
      expect(text).toContain(tool.name);
      expect(text).toContain(DEBUGGER_NOT_GRANTED);
      expect(text).toMatch(L1_ALTERNATIVE[tool.name]);
    }
    expect(host.debuggerAttached.size).toBe(0);
    expect(host.debuggerCommands).toEqual([]);
    expect(host.sent).toEqual([]);
  });

  it('L0 and L1 tools never ask for it', async () => {
    const { tools } = setup(false);
    let judged = 0;
    for (const tool of tools.filter((t) => t.level !== 'L2')) {
      const parsed = tool.parameters.safeParse({ url: 'https://shop.example/', tabId: 1 });
      if (!parsed.success || !tool.resolveTarget) continue;
      const target = await tool.resolveTarget(parsed.data, ctx);
      expect(target.alwaysAsk ?? '', tool.name).not.toBe(DEBUGGER_PERMISSION_ASK);
      judged++;
    }
    expect(judged).toBeGreaterThan(3);
  });

  it('the debugger sessions refuse to attach without it', async () => {
    const host = new FakeHost();
    host.debuggerGranted = false;
    host.addTab({ tabId: 1, url: 'https://shop.example/', title: '' });
    const sessions = new DebuggerSessions(host);
    await expect(sessions.acquire(1, 'r1')).rejects.toThrow(DEBUGGER_NOT_GRANTED);
    expect(host.debuggerAttached.size).toBe(0);
  });
});

describe('L2 tools with the debugger permission', () => {
  it('do not ask for it again, and run', async () => {
    const { host, l2 } = setup(true);
    for (const tool of l2) {
      const params = tool.parameters.parse(L2_PARAMS[tool.name]) as Record<string, unknown>;
      const target = await tool.resolveTarget?.(params, ctx);
      expect(target?.alwaysAsk ?? '', tool.name).not.toBe(DEBUGGER_PERMISSION_ASK);
    }
    host.page = (_t, _f, req) =>
      req.op === 'settle'
        ? {
            ok: true,
            result: {
              docId: 'd',
              url: 'https://shop.example/cart',
              title: '',
              quiet: true,
              mutations: 0,
              appeared: [],
            },
          }
        : { ok: true, result: {} };
    const mouse = l2.find((t) => t.name === 'browser_mouse')!;
    const result = await mouse.execute(
      'id',
      mouse.parameters.parse(L2_PARAMS.browser_mouse) as Record<string, unknown>,
      new AbortController().signal,
      () => undefined,
      ctx,
    );
    expect(result.isError ?? false).toBe(false);
    expect(host.debuggerAttached.has(1)).toBe(true);
  });
});
