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
import type { AgentTool, ToolCallInfo, ToolResult } from '../../types';
import type { DebuggerSessions, SessionChange } from '../debugger-sessions';
import {
  describeDialogBlock,
  dialogBlock,
  type DialogBlock,
  UNSEEN_DIALOG_HINT,
} from './dialog-block';
import { HOLD_MS, OFF, SIGNAL_ONLY, holdKey, setDialogHold } from './dialog-hold';
import { HostError, type BrowserHost } from '../host';

/** Tools that act on tabs, not in the page: they run while a dialog is open, with a note. */
const TAB_TOOLS = new Set([
  'browser_tabs',
  'browser_tab_open',
  'browser_tab_switch',
  'browser_tab_close',
]);
/** How long a frame that signalled a dialog may take to answer before it counts as blocked. */
const PROBE_MS = 400;
/** How long a tool waits for the wrapper to be in place before it runs. */
const INSTALL_WAIT_MS = 500;

export class OutsideDialogs {
  /** The run that used each tab last, while that run is live. */
  private readonly runOfTab = new Map<number, string>();
  /** Per tab, the frames whose page signalled a dialog that has not returned yet. */
  private readonly signalled = new Map<number, Set<number>>();
  /** Per tab, why the debugger could not be attached for a signalled dialog. */
  private readonly unattachable = new Map<number, string>();
  /** Tabs where the user closed Keel's debugging bar during the run: not attached again. */
  private readonly declined = new Set<number>();
  /** Tabs no live run uses that were told once to switch a left-over wrapper off. */
  private readonly switchedOff = new Set<number>();
  /** Per tab, the mode changes in flight: applied in order, each with the mode at its turn. */
  private readonly applying = new Map<number, Promise<void>>();
  /** Per tab, what the wrappers were last brought to (`holdKey`): nothing to send while equal. */
  private readonly applied = new Map<number, string>();

  constructor(
    private readonly host: BrowserHost,
    private readonly debuggers: DebuggerSessions,
  ) {
    host.onDialogSignal((tabId, frameId, open) => this.onSignal(tabId, frameId, open));
    host.onTabRemoved((tabId) => this.forgetTab(tabId));
    host.onTabChanged((change) => {
      if (!this.runOfTab.has(change.tabId)) return;
      // A new document: its dialogs are new, and it needs the wrapper again.
      if (change.status === 'loading') {
        this.signalled.delete(change.tabId);
        this.applied.delete(change.tabId);
      }
      if (change.status) void this.apply(change.tabId);
    });
    debuggers.onChange((c) => this.onSession(c));
  }

  /**
   * Resolves once the wrapper is in place, or after INSTALL_WAIT_MS: a page a dialog already
   * blocks runs the install only after the dialog closed. A tool waits for it because it must go
   * in before an action's dialog guard (dialog-guard.ts): installed over the guard, it would
   * hold the page (and attach the debugger) for dialogs the guard answers.
   */
  async noteUse(tabId: number | undefined, runId: string): Promise<void> {
    if (tabId === undefined) return;
    this.runOfTab.set(tabId, runId);
    this.switchedOff.delete(tabId);
    await Promise.race([this.apply(tabId), this.host.sleep(INSTALL_WAIT_MS)]);
  }

  /** The run ended: its tabs' wrappers call straight through, and nothing attaches for them. */
  releaseRun(runId: string): void {
    for (const [tabId, r] of this.runOfTab) {
      if (r !== runId) continue;
      this.forgetTab(tabId);
      void this.apply(tabId);
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
    const tabOf = (params: P, ctx: ToolCallInfo) =>
      (params as { tabId?: number } | undefined)?.tabId ?? ctx.tabId;
    if (tool.name === 'browser_dialog') {
      return {
        ...tool,
        execute: (id, params, signal, onUpdate, ctx) => {
          // Not waited for: a dialog blocks the page (the install runs after the answer).
          void this.noteUse(tabOf(params, ctx), ctx.runId);
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
            resolveTarget: async (params: P, ctx: ToolCallInfo) => {
              const blocked = await note(tabOf(params, ctx));
              if (blocked) throw new Error(blocked);
              return resolveTarget(params, ctx);
            },
          }
        : {}),
      execute: async (id, params, signal, onUpdate, ctx): Promise<ToolResult<D>> => {
        const tabId = tabOf(params, ctx);
        await this.noteUse(tabId, ctx.runId);
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
          if (after) throw new Error(`${errorMessage(e)}\n${after}`);
          // A dialog Keel never heard of (opened before the wrapper went in) looks like this.
          if (e instanceof HostError && e.code === 'timeout')
            throw new Error(`${errorMessage(e)}. ${UNSEEN_DIALOG_HINT}`);
          throw e;
        }
        const after = await note(tabId);
        if (!after) return result;
        return { ...result, content: [...result.content, { type: 'text', text: after }] };
      },
    };
  }

  /**
   * The mode a tab's wrapper must have: off without a live run; no hold while a session sees the
   * tab's dialogs, or while no session can come (the user closed the bar, the attach failed).
   */
  private modeFor(tabId: number, detaching: boolean): number {
    if (!this.runOfTab.has(tabId)) return OFF;
    const noHold =
      (this.debuggers.isAttached(tabId) && !detaching) ||
      this.declined.has(tabId) ||
      this.unattachable.has(tabId);
    return noHold ? SIGNAL_ONLY : HOLD_MS;
  }

  /**
   * Brings the tab's wrapper to the mode of the moment it runs, after the changes before it (a
   * page a dialog blocks runs them late, but in order). A tab no live run uses is only switched
   * off where a wrapper is (one a restarted worker or an ended run left): never installed.
   */
  private apply(tabId: number, opts: { detaching?: boolean } = {}): Promise<void> {
    const next = (this.applying.get(tabId) ?? Promise.resolve()).then(async () => {
      const mode = this.modeFor(tabId, opts.detaching === true);
      // Every tool call comes here first: when each frame still shows the document that got
      // this mode, there is nothing to send (measured: this was part of each read's overhead
      // against Playwright MCP, docs/benchmarks.md).
      const frames = await this.host.listFrames(tabId).catch(() => []);
      const key = holdKey(mode, frames);
      if (key && this.applied.get(tabId) === key) return;
      this.applied.delete(tabId);
      const ok = await setDialogHold(this.host, tabId, mode, mode !== OFF, frames);
      if (ok && key) this.applied.set(tabId, key);
    });
    this.applying.set(tabId, next);
    void next.finally(() => {
      if (this.applying.get(tabId) === next) this.applying.delete(tabId);
    });
    return next;
  }

  private onSignal(tabId: number, frameId: number, open: boolean): void {
    const frames = this.signalled.get(tabId) ?? new Set<number>();
    if (!open) {
      frames.delete(frameId);
      return;
    }
    const runId = this.runOfTab.get(tabId);
    if (!runId) {
      // A wrapper no live run wants (the run ended while the worker was stopped): switch it off,
      // once (a page that fires the signal itself gets no more than that).
      if (!this.switchedOff.has(tabId)) {
        this.switchedOff.add(tabId);
        void this.apply(tabId);
      }
      return;
    }
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
        // The page is not held for a debugger that does not come; its signals still count, and
        // the next one tries again (then attached in time for the dialog after it).
        this.unattachable.set(tabId, errorMessage(e));
        void this.apply(tabId);
      },
    );
  }

  private async onSession(change: SessionChange): Promise<void> {
    const { tabId } = change;
    if (!this.runOfTab.has(tabId)) return;
    if (change.kind === 'ready') {
      this.unattachable.delete(tabId);
      await this.apply(tabId);
      return;
    }
    // The user closed Keel's debugging bar: do not bring it back for dialogs the page opens.
    if (change.reason === 'canceled_by_user') this.declined.add(tabId);
    // Called before the session goes (it still counts as attached): the mode after it.
    await this.apply(tabId, { detaching: true });
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
    this.applied.delete(tabId);
    this.switchedOff.delete(tabId);
    this.signalled.delete(tabId);
    this.unattachable.delete(tabId);
    this.declined.delete(tabId);
  }
}

/** Runs in the page: answers at once unless a dialog blocks the frame's thread. */
function probeFrame(): boolean {
  return true;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
