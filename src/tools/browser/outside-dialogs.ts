/**
 * Dialogs a page opens outside an agent action, in tabs a live run works in (dialog-hold.ts).
 *
 * Every browser tool call notes its tab for its run and installs the wrapper in the tab's frames.
 * The wrapper holds the page only while it must: while the run is live and no debugger session
 * with the Page domain enabled sees the tab's dialogs. When the page then signals a dialog, the
 * debugger attaches for the run that used the tab last, so the dialog opens under an enabled
 * Page domain and browser_dialog can answer it (an answer is a write, judged like any other). A
 * signal from a tab no live run uses attaches nothing. When the run ends the wrapper is switched
 * off (it stays in the page until the page navigates, calling straight through).
 *
 * And every browser tool first asks whether a dialog blocks its tab (dialog-block.ts): a page
 * tool on a blocked tab does not run, and its result says which dialog blocks the page and how
 * to go on (browser_dialog, or the user when the debugger could not see the dialog), instead of
 * waiting on a page that cannot answer; tab tools run and carry the same note.
 */
import type { AgentTool, ToolCallContext, ToolResult } from '../types';
import type { DebuggerSessions, SessionChange } from './debugger-sessions';
import { describeDialogBlock, dialogBlock, type DialogBlock } from './dialog-block';
import { HOLD_MS, OFF, SIGNAL_ONLY, setDialogHold } from './dialog-hold';
import type { BrowserHost } from './host';

/** Tools that act on tabs, not in the page: they run while a dialog is open, with a note. */
const TAB_TOOLS = new Set([
  'browser_tabs',
  'browser_tab_open',
  'browser_tab_switch',
  'browser_tab_close',
]);
/** How long a frame that signalled a dialog may take to answer before it counts as blocked. */
const PROBE_MS = 400;

export class OutsideDialogs {
  /** The run that used each tab last, while that run is live. */
  private readonly runOfTab = new Map<number, string>();
  /** Per tab, the frames whose page signalled a dialog that has not returned yet. */
  private readonly signalled = new Map<number, Set<number>>();
  /** Per tab, why the debugger could not be attached for a signalled dialog. */
  private readonly unattachable = new Map<number, string>();
  /** Tabs where the user closed Keel's debugging bar during the run: not attached again. */
  private readonly declined = new Set<number>();

  constructor(
    private readonly host: BrowserHost,
    private readonly debuggers: DebuggerSessions,
  ) {
    host.onDialogSignal((tabId, frameId, open) => this.onSignal(tabId, frameId, open));
    host.onTabRemoved((tabId) => this.forgetTab(tabId));
    host.onTabChanged((change) => {
      if (!this.runOfTab.has(change.tabId)) return;
      // A new document: its dialogs are new, and it needs the wrapper again.
      if (change.status === 'loading') this.signalled.delete(change.tabId);
      if (change.status) void setDialogHold(host, change.tabId, this.modeFor(change.tabId));
    });
    debuggers.onChange((c) => this.onSession(c));
  }

  /** Not awaited: a page a dialog already blocks would keep the install (and the tool) waiting. */
  noteUse(tabId: number | undefined, runId: string): void {
    if (tabId === undefined) return;
    this.runOfTab.set(tabId, runId);
    void setDialogHold(this.host, tabId, this.modeFor(tabId));
  }

  /** The run ended: its tabs' wrappers call straight through, and nothing attaches for them. */
  releaseRun(runId: string): void {
    for (const [tabId, r] of this.runOfTab) {
      if (r !== runId) continue;
      this.forgetTab(tabId);
      void setDialogHold(this.host, tabId, OFF);
    }
  }

  /** Whether a dialog blocks the tab now (probing frames that signalled one, when unseen). */
  async blockOf(tabId: number): Promise<DialogBlock> {
    const attached = this.debuggers.isAttached(tabId);
    const seen = this.debuggers.dialogOf(tabId);
    let blockedFrames = 0;
    if (!seen && !attached) blockedFrames = await this.stillBlocked(tabId);
    const why = this.unattachable.get(tabId);
    return dialogBlock({ attached, seen, blockedFrames, ...(why ? { unattachable: why } : {}) });
  }

  /** The same tool, noting its tab before it runs and refusing to run on a blocked page. */
  watch<P, D>(tool: AgentTool<P, D>): AgentTool<P, D> {
    const tabOf = (params: P, ctx: ToolCallContext) =>
      (params as { tabId?: number } | undefined)?.tabId ?? ctx.tabId;
    if (tool.name === 'browser_dialog') {
      return {
        ...tool,
        execute: (id, params, signal, onUpdate, ctx) => {
          this.noteUse(tabOf(params, ctx), ctx.runId);
          return tool.execute(id, params, signal, onUpdate, ctx);
        },
      };
    }
    const onTab = TAB_TOOLS.has(tool.name);
    const note = async (tabId: number | undefined) => {
      if (tabId === undefined) return undefined;
      const block = await this.blockOf(tabId);
      if (block.kind === 'none') return undefined;
      const url = await this.host.getTab(tabId).then(
        (t) => t.url,
        () => '',
      );
      return describeDialogBlock(tabId, block, url);
    };
    const resolveTarget = tool.resolveTarget?.bind(tool);
    return {
      ...tool,
      // The target of a page tool is read from the page: a blocked page would not answer.
      ...(resolveTarget && !onTab
        ? {
            resolveTarget: async (params: P, ctx: ToolCallContext) => {
              const blocked = await note(tabOf(params, ctx));
              if (blocked) throw new Error(blocked);
              return resolveTarget(params, ctx);
            },
          }
        : {}),
      execute: async (id, params, signal, onUpdate, ctx): Promise<ToolResult<D>> => {
        const tabId = tabOf(params, ctx);
        this.noteUse(tabId, ctx.runId);
        if (!onTab) {
          // Also after an approval: the page may have opened a dialog while the user decided.
          const blocked = await note(tabId);
          if (blocked) return { content: [{ type: 'text', text: blocked }], isError: true };
        }
        // L2 tools report the dialogs their own input opened; others learn here of one that
        // opened meanwhile (a navigation's "leave this page?", a timer), also when they failed.
        if (tool.level === 'L2') return tool.execute(id, params, signal, onUpdate, ctx);
        let result: ToolResult<D>;
        try {
          result = await tool.execute(id, params, signal, onUpdate, ctx);
        } catch (e) {
          const after = await note(tabId);
          if (!after) throw e;
          throw new Error(`${e instanceof Error ? e.message : String(e)}\n${after}`);
        }
        const after = await note(tabId);
        if (!after) return result;
        return { ...result, content: [...result.content, { type: 'text', text: after }] };
      },
    };
  }

  private modeFor(tabId: number): number {
    if (!this.runOfTab.has(tabId)) return OFF;
    return this.debuggers.isAttached(tabId) || this.declined.has(tabId) ? SIGNAL_ONLY : HOLD_MS;
  }

  private onSignal(tabId: number, frameId: number, open: boolean): void {
    const frames = this.signalled.get(tabId) ?? new Set<number>();
    if (!open) {
      frames.delete(frameId);
      return;
    }
    const runId = this.runOfTab.get(tabId);
    if (!runId) return;
    frames.add(frameId);
    this.signalled.set(tabId, frames);
    if (this.debuggers.isAttached(tabId)) return;
    if (this.declined.has(tabId)) {
      this.unattachable.set(tabId, 'the debugging bar was closed during this task');
      return;
    }
    this.debuggers.acquire(tabId, runId).then(
      () => this.unattachable.delete(tabId),
      (e: unknown) => {
        this.unattachable.set(tabId, e instanceof Error ? e.message : String(e));
        // The page is not held for a debugger that does not come; its signals still count.
        void setDialogHold(this.host, tabId, this.runOfTab.has(tabId) ? SIGNAL_ONLY : OFF);
      },
    );
  }

  private async onSession(change: SessionChange): Promise<void> {
    const { tabId } = change;
    if (!this.runOfTab.has(tabId)) return;
    if (change.kind === 'ready') {
      this.unattachable.delete(tabId);
      await setDialogHold(this.host, tabId, SIGNAL_ONLY);
      return;
    }
    // The user closed Keel's debugging bar: do not bring it back for dialogs the page opens.
    if (change.reason === 'canceled_by_user') this.declined.add(tabId);
    const mode = this.declined.has(tabId) ? SIGNAL_ONLY : HOLD_MS;
    await setDialogHold(this.host, tabId, mode);
  }

  /** How many frames that signalled a dialog still do not answer (those that do are cleared). */
  private async stillBlocked(tabId: number): Promise<number> {
    const frames = this.signalled.get(tabId);
    if (!frames?.size) return 0;
    const probes = [...frames].map(async (frameId) => {
      const answered = await Promise.race([
        this.host.runInMainWorld(tabId, frameId, probeFrame, []).then(
          () => true,
          () => true,
        ),
        this.host.sleep(PROBE_MS).then(() => false),
      ]);
      if (answered) frames.delete(frameId);
    });
    await Promise.all(probes);
    return frames.size;
  }

  private forgetTab(tabId: number): void {
    this.runOfTab.delete(tabId);
    this.signalled.delete(tabId);
    this.unattachable.delete(tabId);
    this.declined.delete(tabId);
  }
}

/** Runs in the page: answers at once unless a dialog blocks the frame's thread. */
function probeFrame(): boolean {
  return true;
}
