/**
 * Dialogs a page opens outside an agent action, in tabs a live run works in (dialog-hold.ts).
 *
 * Every browser tool call notes its tab for its run and installs the hold there. When the page
 * then signals a dialog, the debugger attaches for the run that used that tab last, so the
 * dialog opens under an enabled Page domain and browser_dialog can answer it (an answer is a
 * write, judged like any other). A signal from a tab no live run uses attaches nothing.
 */
import type { AgentTool, ToolCallContext } from '../types';
import type { DebuggerSessions } from './debugger-sessions';
import { installDialogHold } from './dialog-hold';
import type { BrowserHost } from './host';

export class OutsideDialogs {
  /** The run that used each tab last, while that run is live. */
  private readonly runOfTab = new Map<number, string>();

  constructor(
    private readonly host: BrowserHost,
    private readonly debuggers: DebuggerSessions,
  ) {
    host.onDialogPending((tabId) => {
      const runId = this.runOfTab.get(tabId);
      if (runId) void this.debuggers.acquire(tabId, runId).catch(() => undefined);
    });
    host.onTabRemoved((tabId) => this.runOfTab.delete(tabId));
  }

  /** Not awaited: a page a dialog already blocks would keep the install (and the tool) waiting. */
  noteUse(tabId: number | undefined, runId: string): void {
    if (tabId === undefined) return;
    this.runOfTab.set(tabId, runId);
    void installDialogHold(this.host, tabId);
  }

  releaseRun(runId: string): void {
    for (const [tabId, r] of this.runOfTab) if (r === runId) this.runOfTab.delete(tabId);
  }

  /** The same tool, noting its tab before it runs. */
  watch<P, D>(tool: AgentTool<P, D>): AgentTool<P, D> {
    const tabOf = (params: P, ctx: ToolCallContext) =>
      (params as { tabId?: number } | undefined)?.tabId ?? ctx.tabId;
    return {
      ...tool,
      execute: async (id, params, signal, onUpdate, ctx) => {
        this.noteUse(tabOf(params, ctx), ctx.runId);
        return tool.execute(id, params, signal, onUpdate, ctx);
      },
    };
  }
}
