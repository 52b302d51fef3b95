import type {
  AgentEvent,
  Decision,
  OpInput,
  SettingsPatch,
  SiteRule,
  UserInput,
} from '../../src/protocol';
import type { RecordingFrame } from '../export/recording-export';
import { t } from '../i18n';
import { initialEngineState, type EngineState } from './app-state';
import { Drafts } from './drafts';
import type { EngineClient, OpOutcome } from './engine-client';
import { ExternalStore } from './external-store';
import { LiveItems } from './live-items';
import { routeEvent } from './event-router';
import { activeTurnId, emptyThread, steerableTurnId } from './thread-state';
import { initialUiState, type Hint, type UiState, type View } from './ui-state';

const SELECTED_KEY = 'keel.selectedThread';
const COMPACT_KEY = 'keel.compactReads';

/** Reject codes of a steer that mean "the turn can't take it now": the message goes to the queue. */
const STEER_FALLBACK = new Set(['not_steerable', 'no_active_turn', 'turn_mismatch']);

export type SendMode = 'auto' | 'enqueue';
export interface SendResult {
  ok: boolean;
  threadId: string | null;
}

export interface PanelOptions {
  client: EngineClient;
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  /** Called whenever settings arrive, e.g. to switch the UI language. */
  onSettings?: (settings: NonNullable<EngineState['settings']>) => void;
}

/**
 * The panel's state and every user action. Components read the stores through hooks and call these
 * methods; nothing in the UI talks to the client directly.
 */
export class Panel {
  readonly engine = new ExternalStore<EngineState>(initialEngineState);
  readonly ui = new ExternalStore<UiState>(initialUiState);
  readonly live = new LiveItems();
  readonly drafts: Drafts;
  readonly client: EngineClient;
  private readonly storage: PanelOptions['storage'];
  private hintSeq = 0;

  constructor(private readonly options: PanelOptions) {
    this.client = options.client;
    this.storage = options.storage ?? null;
    this.drafts = new Drafts(this.storage);
    let selected: string | null = null;
    let compactReads = initialUiState.compactReads;
    try {
      selected = this.storage?.getItem(SELECTED_KEY) ?? null;
      compactReads = this.storage?.getItem(COMPACT_KEY) !== 'off';
    } catch {
      /* no storage */
    }
    this.ui.set({ ...initialUiState, selectedThreadId: selected, compactReads });
    this.client.onEvent((ev) => this.handleEvent(ev));
    this.client.onStatus((connection) => this.engine.update((s) => ({ ...s, connection })));
  }

  start(): void {
    this.client.start();
  }

  // ---- events ---------------------------------------------------------------------------------

  private handleEvent(ev: AgentEvent): void {
    routeEvent(ev, {
      engine: this.engine,
      live: this.live,
      onSettings: (settings) => this.options.onSettings?.(settings),
      afterInitialized: () => this.afterInitialized(),
      onThreadDeleted: (threadId) => {
        if (this.ui.get().selectedThreadId === threadId) this.selectThread(null);
      },
    });
  }

  /** After a (re)connect: drop a selection that no longer exists, load the open thread if needed. */
  private afterInitialized(): void {
    const s = this.engine.get();
    const selected = this.ui.get().selectedThreadId;
    if (selected && !s.byId[selected]) this.selectThread(null);
    else if (selected && !s.byId[selected].loaded)
      void this.client.send({ type: 'thread.subscribe', threadId: selected });
  }

  // ---- navigation -----------------------------------------------------------------------------

  setCompactReads(on: boolean): void {
    this.ui.update((u) => ({ ...u, compactReads: on }));
    try {
      this.storage?.setItem(COMPACT_KEY, on ? 'on' : 'off');
    } catch {
      /* no storage: the choice lasts this session */
    }
  }

  /**
   * The thread's audit export (thread.export): the engine's redacted JSON, or null after a
   * failure (already shown as a hint).
   */
  async exportThread(threadId: string): Promise<Record<string, unknown> | null> {
    const out = await this.client.send({ type: 'thread.export', threadId });
    if (!out.ok) {
      this.failed(out);
      return null;
    }
    return out.result && typeof out.result === 'object'
      ? (out.result as Record<string, unknown>)
      : null;
  }

  /**
   * The thread's task recording (thread.recording): its frames oldest first, or null after a
   * failure (already shown as a hint).
   */
  async threadRecording(threadId: string): Promise<RecordingFrame[] | null> {
    const out = await this.client.send({ type: 'thread.recording', threadId });
    if (!out.ok) {
      this.failed(out);
      return null;
    }
    const frames = (out.result as { frames?: unknown } | undefined)?.frames;
    return Array.isArray(frames) ? (frames as RecordingFrame[]) : [];
  }

  /**
   * Threads whose title or messages contain every word of `query` (thread.search), or null when
   * the engine could not answer (the list then keeps its title-only filter).
   */
  async searchThreads(
    query: string,
  ): Promise<Array<{ threadId: string; in: 'title' | 'text'; snippet?: string }> | null> {
    const out = await this.client.send({ type: 'thread.search', query });
    if (!out.ok) return null;
    const matches = (out.result as { matches?: unknown } | undefined)?.matches;
    return Array.isArray(matches)
      ? (matches as Array<{ threadId: string; in: 'title' | 'text'; snippet?: string }>)
      : null;
  }

  setView(view: View): void {
    this.ui.update((u) => ({ ...u, view }));
  }

  selectThread(threadId: string | null): void {
    this.ui.update((u) => ({ ...u, selectedThreadId: threadId, view: 'chat', hint: null }));
    try {
      if (threadId) this.storage?.setItem(SELECTED_KEY, threadId);
      else this.storage?.removeItem(SELECTED_KEY);
    } catch {
      /* no storage */
    }
    const state = threadId ? this.engine.get().byId[threadId] : undefined;
    if (threadId && !state?.loaded) void this.client.send({ type: 'thread.subscribe', threadId });
  }

  showHint(tone: 'info' | 'error', text: string, action?: Hint['action']): void {
    this.ui.update((u) => ({
      ...u,
      hint: { id: ++this.hintSeq, tone, text, ...(action ? { action } : {}) },
    }));
  }

  clearHint(): void {
    this.ui.update((u) => (u.hint ? { ...u, hint: null } : u));
  }

  // ---- threads --------------------------------------------------------------------------------

  async createThread(): Promise<string | null> {
    const out = await this.client.send({ type: 'thread.create' });
    const threadId = out.ok ? resultField(out.result, 'threadId') : null;
    if (!threadId) {
      if (!out.ok) this.showHint('error', out.message);
      return null;
    }
    // The thread.updated event may come later: an empty, loaded thread is the truth for a new one.
    this.engine.update((s) =>
      s.byId[threadId]
        ? s
        : { ...s, byId: { ...s.byId, [threadId]: { ...emptyThread(threadId), loaded: true } } },
    );
    return threadId;
  }

  async newThread(): Promise<void> {
    // A new chat is just the empty composer; the thread is created with its first message.
    this.selectThread(null);
  }

  async deleteThread(threadId: string): Promise<OpOutcome> {
    const out = await this.client.send({ type: 'thread.delete', threadId });
    if (!out.ok) this.showHint('error', out.code === 'busy' ? t('errorThreadBusy') : out.message);
    return out;
  }

  async forkFrom(threadId: string, nodeId: string): Promise<void> {
    const out = await this.client.send({ type: 'thread.fork', threadId, nodeId });
    const newId = out.ok ? resultField(out.result, 'threadId') : null;
    if (newId) this.selectThread(newId);
    else if (!out.ok)
      this.showHint('error', out.code === 'busy' ? t('errorThreadBusy') : out.message);
  }

  async selectBranch(threadId: string, leafId: string): Promise<void> {
    const out = await this.client.send({ type: 'thread.selectBranch', threadId, leafId });
    if (!out.ok) this.showHint('error', out.code === 'busy' ? t('errorThreadBusy') : out.message);
  }

  // ---- turns ----------------------------------------------------------------------------------

  /**
   * Send what the user typed. Idle thread → turn.submit; active run → turn.steer into the running
   * turn (falling back to the queue when the turn can't take it); `enqueue` → straight to the queue.
   * Without a thread, one is created first. `threadId` in the result says where the message went,
   * so a caller can put the text back into that thread's draft when it was not accepted.
   */
  async sendMessage(
    threadId: string | null,
    input: UserInput,
    mode: SendMode = 'auto',
  ): Promise<SendResult> {
    let id = threadId;
    if (!id) {
      id = await this.createThread();
      if (!id) return { ok: false, threadId: null };
      if (this.ui.get().selectedThreadId === null) this.selectThread(id);
    }
    const ok = await this.deliver(id, input, mode);
    return { ok, threadId: id };
  }

  private async deliver(id: string, input: UserInput, mode: SendMode): Promise<boolean> {
    const thread = this.engine.get().byId[id];
    const active = activeTurnId(thread);
    const turnId = steerableTurnId(thread);
    // Queueing behind nothing would leave the message waiting for a turn end that never comes.
    if (mode === 'enqueue' && active) return this.enqueue(id, input, null);
    // A run waiting to start takes no steer: the message waits in the queue behind it.
    if (active && !turnId) return this.enqueue(id, input, t('hintSteerQueued'));
    if (turnId) {
      const out = await this.client.send({
        type: 'turn.steer',
        threadId: id,
        expectedTurnId: turnId,
        input,
      });
      if (out.ok) return true;
      if (STEER_FALLBACK.has(out.code)) return this.enqueue(id, input, t('hintSteerQueued'));
      return this.failed(out);
    }
    const out = await this.client.send({ type: 'turn.submit', threadId: id, input });
    if (out.ok) return true;
    if (out.code === 'busy') return this.enqueue(id, input, t('hintBusyQueued'));
    return this.failed(out);
  }

  /**
   * Edit & resend: a new user message under `parentNodeId`, which forks the history there (the old
   * branch stays reachable through the branch switcher). Only for an idle thread.
   */
  async editAndResend(threadId: string, parentNodeId: string, input: UserInput): Promise<boolean> {
    const path = this.engine.get().byId[threadId]?.path ?? [];
    const at = path.findIndex((i) => i.id === parentNodeId);
    const oldBranch = new Set(at >= 0 ? path.slice(at + 1).map((i) => i.id) : []);
    const out = await this.client.send({ type: 'turn.submit', threadId, input, parentNodeId });
    if (out.ok) {
      // The new branch arrives as live events, which only append: take the old branch's items out
      // of view, and ask for a snapshot for the new branch points (the version switcher).
      this.engine.update((s) => {
        const th = s.byId[threadId];
        if (!th || oldBranch.size === 0) return s;
        return {
          ...s,
          byId: {
            ...s.byId,
            [threadId]: { ...th, path: th.path.filter((i) => !oldBranch.has(i.id)) },
          },
        };
      });
      void this.client.send({ type: 'thread.subscribe', threadId });
      return true;
    }
    if (out.code === 'busy') {
      this.showHint('error', t('errorThreadBusy'));
      return false;
    }
    return this.failed(out);
  }

  private async enqueue(threadId: string, input: UserInput, hint: string | null): Promise<boolean> {
    const out = await this.client.send({ type: 'turn.enqueue', threadId, input });
    if (!out.ok) return this.failed(out);
    if (hint) this.showHint('info', hint);
    return true;
  }

  private failed(out: Extract<OpOutcome, { ok: false }>): false {
    if (out.code === 'no_provider') {
      this.showHint('error', t('errorNoProvider'), 'openSettings');
      return false;
    }
    const text =
      out.code === 'queue_full' ? t('errorQueueFull') : out.message || t('errorGeneric', out.code);
    this.showHint('error', text);
    return false;
  }

  interrupt(threadId: string): Promise<OpOutcome> {
    return this.client.send({ type: 'turn.interrupt', threadId });
  }

  async updateQueueItem(threadId: string, queueItemId: string, input: UserInput): Promise<boolean> {
    return this.simple({ type: 'queue.update', threadId, queueItemId, input });
  }

  async removeQueueItem(threadId: string, queueItemId: string): Promise<boolean> {
    return this.simple({ type: 'queue.remove', threadId, queueItemId });
  }

  // ---- approvals, interactions, runs ----------------------------------------------------------

  async respondApproval(approvalId: string, decision: Decision): Promise<boolean> {
    const out = await this.client.send({ type: 'approval.response', approvalId, decision });
    if (!out.ok && (out.code === 'not_found' || out.code === 'already_resolved')) {
      // Answered elsewhere (another panel) or lost in a restart: the card is stale either way.
      this.dropApproval(approvalId);
      this.showHint('info', t('hintApprovalStale'));
      return false;
    }
    if (!out.ok) return this.failed(out);
    return true;
  }

  private dropApproval(approvalId: string): void {
    this.engine.update((s) => {
      const entry = Object.values(s.byId).find((th) => th.approval?.approvalId === approvalId);
      return entry
        ? { ...s, byId: { ...s.byId, [entry.threadId]: { ...entry, approval: null } } }
        : s;
    });
  }

  /** Bring a tab and its window to the front (a hand-over to the user). */
  async showTab(tabId: number): Promise<void> {
    try {
      const tab = await chrome.tabs.update(tabId, { active: true });
      if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true });
    } catch {
      // The tab is gone: the card still says what to do.
    }
  }

  async respondInteraction(interactionId: string, response: unknown): Promise<boolean> {
    const out = await this.client.send({ type: 'interaction.response', interactionId, response });
    if (!out.ok && (out.code === 'not_found' || out.code === 'already_resolved')) {
      this.engine.update((s) => {
        const entry = Object.values(s.byId).find(
          (th) => th.interaction?.interactionId === interactionId,
        );
        return entry
          ? { ...s, byId: { ...s.byId, [entry.threadId]: { ...entry, interaction: null } } }
          : s;
      });
      return false;
    }
    if (!out.ok) return this.failed(out);
    return true;
  }

  resumeRun(runId: string): Promise<boolean> {
    return this.simple({ type: 'run.resume', runId });
  }

  resolveUncertain(runId: string, resolution: 'retry' | 'mark_done' | 'fail'): Promise<boolean> {
    return this.simple({ type: 'run.resolveUncertain', runId, resolution });
  }

  /** The user takes the page over (issue 28); the run pauses at its next safe point. */
  takeOver(threadId: string): Promise<boolean> {
    return this.simple({ type: 'run.takeOver', threadId });
  }

  /** The user gives the page back; the note reaches the model as a steer. */
  handBack(threadId: string, note?: string): Promise<boolean> {
    return this.simple({ type: 'run.handBack', threadId, ...(note ? { note } : {}) });
  }

  // ---- settings -------------------------------------------------------------------------------

  async updateSettings(patch: SettingsPatch): Promise<OpOutcome> {
    const out = await this.client.send({ type: 'settings.update', patch });
    const settings = out.ok
      ? (out.result as { settings?: EngineState['settings'] } | undefined)?.settings
      : undefined;
    if (settings) {
      this.engine.update((s) => ({ ...s, settings }));
      this.options.onSettings?.(settings);
    }
    return out;
  }

  /** Store a site secret: the value goes to the engine's credentials store and is never shown again. */
  setSiteSecret(
    origin: string,
    name: string,
    kind: 'text' | 'password' | 'totp',
    value: string,
  ): Promise<OpOutcome> {
    return this.client.send({ type: 'secrets.set', origin, name, kind, value });
  }

  removeSiteSecret(origin: string, name: string): Promise<OpOutcome> {
    return this.client.send({ type: 'secrets.remove', origin, name });
  }

  /** `pageToolsRead` unset keeps the site's choice for its page tools (WebMCP). */
  async setSiteRule(origin: string, rule: SiteRule, pageToolsRead?: boolean): Promise<OpOutcome> {
    const out = await this.client.send({
      type: 'siteRules.set',
      origin,
      rule,
      ...(pageToolsRead !== undefined ? { pageToolsRead } : {}),
    });
    // The ack has no settings in it; show the change now (a settings.updated event may follow).
    if (out.ok) {
      this.engine.update((s) => {
        if (!s.settings) return s;
        const prev = s.settings.siteRules.find((r) => r.origin === origin);
        const rest = s.settings.siteRules.filter((r) => r.origin !== origin);
        const reads = pageToolsRead ?? prev?.pageToolsRead ?? false;
        const siteRules = [
          ...rest,
          { origin, rule, updatedAt: Date.now(), ...(reads ? { pageToolsRead: true } : {}) },
        ];
        return { ...s, settings: { ...s.settings, siteRules } };
      });
    }
    return out;
  }

  // ---- skills and per-thread options ------------------------------------------------------------

  /** Import a SKILL.md file's text; the engine validates its front matter. */
  importSkill(content: string): Promise<OpOutcome> {
    return this.client.send({ type: 'skills.import', content });
  }

  removeSkill(name: string): Promise<OpOutcome> {
    return this.client.send({ type: 'skills.remove', name });
  }

  /** "Plan first" and the skills enabled for one thread (ThreadMeta.planFirst / enabledSkills). */
  setThreadOptions(
    threadId: string,
    options: { planFirst?: boolean; enabledSkills?: string[] },
  ): Promise<OpOutcome> {
    return this.client.send({ type: 'thread.setOptions', threadId, options });
  }

  // ---- workflows ----------------------------------------------------------------------------------

  /** Save a finished turn as a workflow (the engine refuses turns it cannot replay). */
  saveWorkflow(threadId: string, turnId: string, name: string): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.save', threadId, turnId, name });
  }

  /** Run a workflow now in a new thread, and open that thread. */
  async runWorkflow(workflowId: string, inputs: Record<string, string>): Promise<OpOutcome> {
    const out = await this.client.send({ type: 'workflow.run', workflowId, inputs });
    const threadId = out.ok ? resultField(out.result, 'threadId') : null;
    if (threadId) {
      this.selectThread(threadId);
      this.setView('chat');
    }
    return out;
  }

  updateWorkflow(
    workflowId: string,
    patch: Extract<OpInput, { type: 'workflow.update' }>['patch'],
  ): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.update', workflowId, patch });
  }

  deleteWorkflow(workflowId: string): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.delete', workflowId });
  }

  clearWorkflowRuns(workflowId: string): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.clearRuns', workflowId });
  }

  /** Record a workflow by showing it, in the active tab (the engine's `workflow.recording` follows). */
  startRecording(): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.recordStart' });
  }

  stopRecording(recordingId: string): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.recordStop', recordingId });
  }

  saveRecording(
    recordingId: string,
    name: string,
    drop: number[],
    renames: Record<string, string>,
  ): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.recordSave', recordingId, name, drop, renames });
  }

  discardRecording(recordingId: string): Promise<OpOutcome> {
    return this.client.send({ type: 'workflow.recordDiscard', recordingId });
  }

  private async simple(op: OpInput): Promise<boolean> {
    const out = await this.client.send(op);
    return out.ok ? true : this.failed(out);
  }
}

function resultField(result: unknown, key: string): string | null {
  const v =
    result && typeof result === 'object' ? (result as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : null;
}
