import type {
  ApprovedPlan,
  BridgePairing,
  Decision,
  ImageInput,
  Item,
  ModelRef,
  ProviderKind,
  RunState,
  SiteRule,
  StopReason,
  Todo,
  ToolEffects,
  ToolLevel,
  UserInput,
  Usage,
  ApprovalMode,
  Locale,
  WorkflowReport,
  WorkflowSchedule,
} from '../protocol';
import type { ReplayState } from '../workflows/replay';
import type { WorkflowDefinition } from '../workflows/types';
import type { ToolBinding, ToolDescriptor, ToolTarget } from '../tools/types';

/**
 * Persisted records (Dexie schema v1). Every record carries `v`, its schema version, so a later
 * version can migrate records one by one. Golden fixtures in test/unit/store freeze these shapes.
 */
export const RECORD_VERSION = 1 as const;

export interface ThreadRecord {
  v: typeof RECORD_VERSION;
  threadId: string;
  title: string;
  /** Where the title came from: a model-generated title replaces only a first-line fallback. */
  titleSource: 'default' | 'user' | 'first_line' | 'model';
  createdAt: number;
  updatedAt: number;
  leafId: string | null;
  parentThreadId?: string;
  forkedFromNodeId?: string;
  planFirst?: boolean;
  enabledSkills?: string[];
  usage: Usage;
  costUsd: number;
  todos: Todo[];
  /** Bumped by every change to the thread record (optimistic checks and audit). */
  revision: number;
}

export interface NodeRecord {
  v: typeof RECORD_VERSION;
  id: string;
  threadId: string;
  /** The tree: null for a root. A thread's history is the path leaf → root. */
  parentId: string | null;
  /** Monotonic per thread: orders siblings and makes "newest branch" well defined. */
  seq: number;
  runId?: string;
  turnId?: string;
  createdAt: number;
  item: Item;
}

export interface PendingSteer {
  steerId: string;
  /** Admission sequence: steers are materialized in this order, whatever order their transactions completed in. */
  seq: number;
  input: UserInput;
  admittedAt: number;
}

export interface ToolCatalogEntry {
  name: string;
  digest: string;
  descriptor: ToolDescriptor;
}

/**
 * Everything a run needs to continue identically after a restart (spec/001 §5): the full prompt,
 * model and parameters, the tool catalog with one digest per descriptor, and the transport's
 * secret-free identity (the key itself is behind `credentialRef` and may rotate).
 */
export interface RunEnvironmentSnapshot {
  v: typeof RECORD_VERSION;
  systemPrompt: string;
  providerId: string;
  model: string;
  modelInfo: {
    toolUse: boolean;
    vision: boolean;
    contextWindow: number;
    maxOutputTokens: number;
    pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  };
  transport: { kind: string; baseURL?: string; credentialRef?: string };
  toolCatalog: ToolCatalogEntry[];
  /** Enabled skills with their full bodies (a resumed run uses exactly these). */
  skills: { name: string; description: string; body: string }[];
  tokenBudget: number | null;
  approvalMode: ApprovalMode;
  planFirst: boolean;
  /**
   * 'plan' mode: the site plan the user approved in this run (set with the answer to the `plan`
   * interaction). Part of the environment so that a resumed run acts under the same plan.
   */
  approvedPlan?: ApprovedPlan;
}

/** A tool call the model asked for, as committed with its assistant message. */
export interface PlannedToolCall {
  id: string;
  /** The tool_call node's id, fixed when the call streamed so the UI's card keeps its identity. */
  nodeId: string;
  name: string;
  args: unknown;
  rawArgs?: string;
}

/** A receiver the user approved for one call: its origin and the always-ask reason they saw. */
export interface ReceiverGrant {
  origin: string;
  alwaysAsk?: string;
}

/**
 * An effect the executor held at the moment of effect (`ToolResult.held`): the approval being
 * asked names this receiver, not the call's judged target.
 */
export interface HeldReceiver {
  target: ToolTarget;
  what: string;
  partial?: string;
  resume?: unknown;
}

interface PreparedBase {
  toolCallId: string;
  nodeId: string;
  name: string;
  params: unknown;
  /** How many times this call has been started (crash loops cannot reset it). */
  attempts: number;
  /**
   * The receivers the user approved for this call (the judged target of an approval, and
   * receivers approved after a hold). The gate delivers to these and to what the rules allow,
   * nothing else. A new approval of the call itself (after drift) starts the list again.
   */
  grants?: ReceiverGrant[];
  /** While parked on (or denied at) an approval about a held receiver: that receiver. */
  holding?: HeldReceiver;
  /** After a held receiver was approved: what the tool asked to get back as `ctx.resume`. */
  resume?: unknown;
}

/** What the Gatekeeper judged: re-checked at dispatch (same origin, rule version, tool). */
interface Judged {
  target: ToolTarget;
  /** Site-rule version seen when the decision was made. */
  ruleVersion: number;
  descriptorDigest: string;
}

/** Fields a phase does not have (so every phase can be read with optional chaining). */
type Without<K extends string> = { [P in K]?: never };

/**
 * The tool call a run is working on, one shape per phase. `phase` is what recovery reads to decide
 * whether the call may have had an effect (`executing`) or certainly did not (everything before).
 *
 * - `awaiting_approval`: parked on an approval; the request's digest and what it was judged on.
 * - `approved`: the user (or a site rule, or a retry after an uncertain outcome) let it run;
 *   dispatch re-checks the judgement before executing.
 * - `denied` / `denied_stop`: the user refused (and stopped the turn); the reason goes to the model.
 * - `awaiting_interaction` / `answered`: ask_user and the like, before and after the answer.
 * - `executing`: started; the outcome is unknown until its result commits.
 * - `resolved_done` / `resolved_failed`: the user's answer about an uncertain outcome.
 */
export type PreparedToolCall =
  | (PreparedBase &
      Judged & { phase: 'awaiting_approval'; approvalId: string; approvalDigest: string } & Without<
        'interactionId' | 'denyReason'
      >)
  | (PreparedBase &
      Judged & { phase: 'approved'; approvalId?: string; approvalDigest?: string } & Without<
        'interactionId' | 'denyReason'
      >)
  | (PreparedBase &
      Partial<Judged> & {
        phase: 'denied' | 'denied_stop';
        approvalId: string;
        approvalDigest?: string;
        denyReason?: string;
      } & Without<'interactionId'>)
  | (PreparedBase & { phase: 'awaiting_interaction' | 'answered'; interactionId: string } & Without<
        'approvalId' | 'approvalDigest' | 'denyReason' | keyof Judged
      >)
  | (PreparedBase &
      Partial<Judged> & {
        phase: 'executing' | 'resolved_done' | 'resolved_failed';
        approvalId?: string;
        approvalDigest?: string;
        interactionId?: string;
      } & Without<'denyReason'>);

export type PreparedPhase = PreparedToolCall['phase'];

export interface ExternalCall {
  pairingId: string;
  clientName: string;
  call: PlannedToolCall;
  phase: 'planned' | 'sent';
}

export interface RunRecord {
  v: typeof RECORD_VERSION;
  runId: string;
  threadId: string;
  turnId: string;
  state: RunState;
  createdAt: number;
  updatedAt: number;
  revision: number;
  /** Input of a run that has not started yet (queued) — materialized as its user message at start. */
  input?: UserInput;
  /** Queue order for runs waiting behind the thread's current run. */
  queueSeq?: number;
  overrides?: { providerId?: string; model?: string };
  /** Branch point for a submit from an earlier node (edit & resend). */
  parentNodeId?: string | null;
  env?: RunEnvironmentSnapshot;
  /** The thread's tab for this turn: the active tab when the turn started. */
  tabId?: number;
  stepCursor: {
    modelCalls: number;
    /** The assistant message whose tool calls are being worked through. */
    assistantNodeId?: string;
    toolCalls: PlannedToolCall[];
    /** Index into toolCalls of the next call to dispatch. */
    nextToolIndex: number;
    /** 'plan' while a planning round is due; 'continuation' after a <no_tool> plan. */
    round?: 'plan' | 'continuation' | 'final_no_tools';
  };
  counters: {
    consecutiveToolFailures: number;
    /** Set by the breaker at 5 failures: the next model call has no tools and ends the turn. */
    toolsDisabled: boolean;
    /** Model-call attempts for the current step (reset by a committed assistant message). */
    modelAttempts: number;
    /** Token usage counted against the budget since the turn started or was last resumed. */
    budgetBaseline: number;
  };
  pendingSteers: PendingSteer[];
  nextSteerSeq: number;
  pendingTool?: PreparedToolCall;
  usage: Usage;
  costUsd: number;
  stopReason?: StopReason;
  error?: { code: string; message: string };
  /** A workflow run: the replay's cursor (src/workflows/replay.ts). Absent for model turns. */
  workflow?: ReplayState;
  /**
   * An outside agent's call through the MCP bridge (src/engine/workflow/external-step.ts): the
   * one call this run makes, and whether its assistant message is committed yet.
   */
  external?: ExternalCall;
  /**
   * The user pressed Take over (issue 28): set by `run.takeOver` while the run works; the driver
   * pauses it at its next safe point (`user_control`); cleared by the hand back or the turn's end.
   */
  takeOver?: { requestedAt: number };
  /**
   * The page as the agent left it when the user got it (a Take over, or request_takeover): the
   * hand back compares the tab with it. Never what the user typed or clicked.
   */
  pageAtHandOver?: PageLook;
}

/** A tab as the model may be told of it: its URL and title (page-controlled, so untrusted). */
export interface PageLook {
  tabId: number;
  url: string;
  title: string;
}

/**
 * A run's environment snapshot, stored once beside its run (table `runEnvs`, keyed by runId).
 * The snapshot (system prompt, model info, tool catalog: ~27 KB with the browser tools) never
 * changes once the run has started, while the run record is rewritten several times per step;
 * keeping it out of that record is most of what a step writes (docs/benchmarks.md). The runs
 * repository joins it back: callers see `RunRecord.env` as before.
 */
export interface RunEnvRecord {
  v: typeof RECORD_VERSION;
  runId: string;
  threadId: string;
  env: RunEnvironmentSnapshot;
}

export interface ApprovalRecord {
  v: typeof RECORD_VERSION;
  approvalId: string;
  threadId: string;
  runId: string;
  toolCallId: string;
  nodeId: string;
  /** `pageClaimsReadOnly`: a page tool's own read-only claim (shown on the card, never trusted). */
  tool: {
    name: string;
    label: string;
    level: ToolLevel;
    effects: ToolEffects;
    pageClaimsReadOnly?: boolean;
  };
  params: unknown;
  target: ToolTarget;
  options: Decision[];
  reason?: string;
  digest: string;
  status: 'pending' | 'resolved' | 'cancelled';
  decision?: Decision;
  decisionReason?: string;
  createdAt: number;
  resolvedAt?: number;
}

export interface InteractionRecord {
  v: typeof RECORD_VERSION;
  interactionId: string;
  threadId: string;
  runId: string;
  toolCallId: string;
  nodeId: string;
  kind: 'ask_user' | 'elicitation' | 'takeover' | 'plan';
  payload: unknown;
  status: 'pending' | 'answered' | 'claimed' | 'cancelled';
  response?: unknown;
  createdAt: number;
  resolvedAt?: number;
}

export type ReceiptOutcome =
  | { kind: 'ack'; result?: unknown }
  | { kind: 'reject'; code: string; message: string };

export interface ReceiptRecord {
  v: typeof RECORD_VERSION;
  /** `${clientId}\u0000${submissionId}` */
  key: string;
  type: string;
  fingerprint: string;
  outcome: ReceiptOutcome;
  createdAt: number;
}

export interface SiteRuleRecord {
  v: typeof RECORD_VERSION;
  origin: string;
  rule: SiteRule;
  /** Bumped on every change; an approval made under one version is re-checked under another. */
  version: number;
  updatedAt: number;
  /** The user counts this site's page tools (WebMCP) as reads: the Gatekeeper allows them. */
  pageToolsRead?: boolean;
}

export interface StoredProvider {
  id: string;
  kind: ProviderKind;
  baseURL?: string;
  label?: string;
  credentialId?: string;
  models?: {
    id: string;
    toolUse?: boolean;
    vision?: boolean;
    contextWindow?: number;
    maxOutputTokens?: number;
  }[];
}

export interface StoredMcpServer {
  id: string;
  url: string;
  enabled: boolean;
  allowedTools?: string[];
  label?: string;
  isolation?: 'shared' | 'per_thread';
  credentialId?: string;
  /** OAuth pre-registered client; its secret is the credential `oauthClientSecretId`. */
  oauthClientId?: string;
  oauthClientSecretId?: string;
}

export interface SettingsRecord {
  v: typeof RECORD_VERSION;
  key: 'main';
  providers: StoredProvider[];
  defaultModel: ModelRef | null;
  taskModel: ModelRef | null;
  tokenBudget: number | null;
  approvalMode: ApprovalMode;
  locale: Locale | null;
  mcpServers: StoredMcpServer[];
  /** Site secrets (src/secrets): what they are; each value is the credential `credentialId`. */
  siteSecrets?: StoredSiteSecret[];
  /** Keel as an MCP server (docs/mcp-server.md); absent = off, default port, no pairings. */
  mcpBridge?: StoredBridgeSettings;
  /** Origins the user marked private: no task recording there (issue 30). Absent = none. */
  privateSites?: string[];
  revision: number;
}

export interface StoredBridgeSettings {
  enabled: boolean;
  port: number;
  /** Each pairing's secret hash is the credential `bridge:<pairingId>` (deleted on revoke). */
  pairings: BridgePairing[];
}

export interface StoredSiteSecret {
  origin: string;
  name: string;
  kind: 'text' | 'password' | 'totp';
  credentialId: string;
  updatedAt: number;
}

/** A user skill (SKILL.md): its description goes into the system prompt, its body loads on demand. */
/** A saved workflow (src/workflows): its definition, schedule and last run. */
export interface WorkflowRecord {
  v: typeof RECORD_VERSION;
  workflowId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  /** The turn it was saved from, or the recording of a demonstration it was made of. */
  source: { threadId: string; turnId: string } | { recordingId: string };
  definition: WorkflowDefinition;
  schedule: WorkflowSchedule;
  /** Where scheduled runs land (created by the first scheduled run). */
  threadId?: string;
  lastRun?: WorkflowRunEntry;
  /** The last few runs, newest first (`lastRun` is the first); unset in older records. */
  recentRuns?: WorkflowRunEntry[];
}

/** One run of a workflow as its record keeps it. */
export interface WorkflowRunEntry {
  threadId: string;
  runId: string;
  at: number;
  /**
   * A `WorkflowOutcome` (the stop reason, or 'running'); records written before it was one may
   * hold a run state (src/engine/workflow-view.ts reads those).
   */
  outcome: string;
  trigger?: 'schedule';
  error?: { code: string; message: string };
  report?: WorkflowReport;
}

export interface SkillRecord {
  v: typeof RECORD_VERSION;
  name: string;
  description: string;
  body: string;
  createdAt: number;
  updatedAt: number;
}

/** An encrypted secret (AES-GCM). The key never leaves the credentials repository. */
export interface CredentialRecord {
  v: typeof RECORD_VERSION;
  id: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: ArrayBuffer;
  createdAt: number;
  updatedAt: number;
}

export interface KeyRecord {
  id: 'credentials';
  key: CryptoKey;
}

export type { ImageInput, ToolBinding };
