/**
 * A page's dialog signal (dialog-hold.ts) attaches the debugger only to a tab a live run has
 * used, for that run, and never after the run ended: a page cannot make Keel attach elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { createBrowserTools } from '../../../src/tools/browser';
import type { AgentTool, ToolCallContext } from '../../../src/tools/types';
import { FakeHost } from './fake-host';

const ctx = (runId: string, tabId: number): ToolCallContext =>
  ({ threadId: 't1', runId, tabId, model: { vision: false } }) as unknown as ToolCallContext;

const flush = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const host = new FakeHost();
  host.addTab({ tabId: 1, url: 'https://shop.example/cart', title: 'Cart' });
  host.addTab({ tabId: 2, url: 'https://other.example/', title: 'Other' });
  const { tools, lifecycle } = createBrowserTools(host, { thumbnails: false });
  const tabs = tools.find((t) => t.name === 'browser_tabs') as AgentTool<Record<string, unknown>>;
  const use = (runId: string, tabId: number) =>
    tabs
      .execute('id', {}, new AbortController().signal, () => undefined, ctx(runId, tabId))
      .catch(() => undefined);
  return { host, lifecycle, use };
}

describe('dialogs a page opens outside an agent action', () => {
  it('attach the debugger only in a tab a live run used, and install the hold there', async () => {
    const { host, lifecycle, use } = setup();
    host.emitDialogPending(1);
    await flush();
    expect([...host.debuggerAttached]).toEqual([]);

    await use('r1', 1);
    expect(host.mainWorldCalls).toContain('holdDialogsInPage');
    host.emitDialogPending(2);
    await flush();
    expect([...host.debuggerAttached]).toEqual([]);
    host.emitDialogPending(1);
    await flush();
    expect([...host.debuggerAttached]).toEqual([1]);

    // The run's end detaches it, and later signals from the tab attach nothing.
    await lifecycle.runEnded?.('r1', 't1');
    expect([...host.debuggerAttached]).toEqual([]);
    host.emitDialogPending(1);
    await flush();
    expect([...host.debuggerAttached]).toEqual([]);
  });
});
