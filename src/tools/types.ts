import type { z } from 'zod';
import type { ContentBlock, ToolEffects, ToolLevel } from '../protocol';
import type { JsonSchema } from '../providers/types';

/**
 * AgentTool (spec/001 §4): the one shape of every tool — browser, builtin and MCP.
 * `content` goes to the model; `details` only to the UI. A tool signals failure by throwing
 * (or returning `isError`): the engine turns it into an error result the model can correct.
 */

export type ToolRecovery = 'retry-safe' | 'inspect-first' | 'never-retry';
export type ToolVisibility = 'internal' | 'tool' | 'skill';
/** Where a tool's output comes from: page and MCP output is untrusted data for the model. */
export type ToolProvenance = 'tool' | 'page' | 'mcp';

export type ToolBinding =
  | { kind: 'local' }
  | { kind: 'mcp'; serverId: string; endpoint: string; authIdentity: string };

/** What a call acts on. The Gatekeeper decides on `origin` (a tab's origin, or a navigation's destination). */
export interface ToolTarget {
  tabId?: number;
  frameId?: number;
  url?: string;
  origin?: string;
  title?: string;
  favIconUrl?: string;
  serverId?: string;
  /** The element the call acts on, as the page names it (page text: shown to the user, never judged). */
  element?: { role: string; name: string };
  /**
   * For an action inside an embedded frame of another origin: the top page's URL and origin.
   * `url`/`origin` are then the frame's own — the call is judged on the frame's site rule, and
   * the approval card says "in a frame of <topOrigin>, from <origin>".
   */
  topUrl?: string;
  topOrigin?: string;
  /**
   * Set when the call must always be approved, whatever the site rule or approval mode
   * (downloads, file uploads, payment-like submits, cross-origin navigation carrying page data).
   */
  alwaysAsk?: string;
  /** Set when the call must never run (browser-internal or extension pages). */
  forbidden?: string;
}

/** Per-call context the engine passes to a tool. */
export interface ToolCallContext {
  threadId: string;
  runId: string;
  /** The thread's tab: the active tab when the turn started (tools target it unless told otherwise). */
  tabId?: number;
  /** Capabilities of the model in use (tools adapt their content, e.g. screenshots need vision). */
  model: { vision: boolean };
  /**
   * Ask the user something while the call runs (MCP elicitation). The request is persisted and
   * shown like any interaction; the promise resolves with the user's response, or rejects when
   * the run is interrupted. If the worker restarts meanwhile the call cannot continue: the user's
   * answer is then given to the model with a note to re-issue the call only if that is safe.
   */
  requestInteraction?(kind: 'elicitation', payload: unknown): Promise<unknown>;
}

export interface ToolUpdate<D = unknown> {
  progressText: string;
  details?: D;
}

export interface ToolResult<D = unknown> {
  content: ContentBlock[];
  details?: D;
  /** An error result the model should see as such (a thrown error becomes one too). */
  isError?: boolean;
}

/**
 * Tools that need the user (ask_user, MCP elicitation) do not run `execute` directly: the engine
 * persists an interaction from `prepare`, shows it, and builds the result from the response
 * with `complete`. That way the wait survives a service-worker restart.
 */
export interface InteractionPreparer<P = unknown> {
  kind: 'ask_user' | 'elicitation';
  prepare(params: P): unknown;
  /** Validate a user's response; return an error message to reject it. */
  validateResponse?(payload: unknown, response: unknown): string | null;
  complete(payload: unknown, response: unknown): ToolResult;
}

export interface AgentTool<P = unknown, D = unknown> {
  name: string;
  /** Shown in the UI ("Click element"). */
  label: string;
  /** For the model. */
  description: string;
  /** Runtime validation; the JSON Schema sent to the model is generated from it. */
  parameters: z.ZodType<P>;
  /** Remote tools (MCP): the server's original JSON Schema, sent as is. */
  inputSchema?: JsonSchema;
  level: ToolLevel;
  effects: ToolEffects;
  /** Defaults: read → retry-safe, write → never-retry. */
  recovery?: ToolRecovery;
  /** Default 'tool'. `internal` tools emit no tool-call items (spec/003). */
  visibility?: ToolVisibility;
  /** Default: builtin → trusted; everything else untrusted. */
  trusted?: boolean;
  /** Default: builtin → 'tool', mcp → 'mcp', L0–L2 → 'page'. */
  provenance?: ToolProvenance;
  /** Default local; `mcp` level tools must carry an MCP binding. */
  binding?: ToolBinding;
  /** Tools whose use is itself the user's decision (ask_user) skip approval (spec/000 §4). */
  skipApproval?: boolean;
  interaction?: InteractionPreparer<P>;
  resolveTarget?(params: P, ctx: ToolCallContext): Promise<ToolTarget>;
  execute(
    toolCallId: string,
    params: P,
    signal: AbortSignal,
    onUpdate: (update: ToolUpdate<D>) => void,
    ctx: ToolCallContext,
  ): Promise<ToolResult<D>>;
}

/** The normalized, frozen metadata of a registered tool (what the digest covers). */
export interface ToolDescriptor {
  name: string;
  label: string;
  description: string;
  inputSchema: JsonSchema;
  level: ToolLevel;
  effects: ToolEffects;
  recovery: ToolRecovery;
  visibility: ToolVisibility;
  trusted: boolean;
  provenance: ToolProvenance;
  binding: ToolBinding;
  skipApproval: boolean;
  interactionKind?: 'ask_user' | 'elicitation';
}

/**
 * Lifecycle hooks a tool family can register (L2 detaches the debugger when a run ends or is
 * interrupted; MCP closes per-thread sessions).
 */
export interface ToolLifecycle {
  runEnded?(runId: string, threadId: string): Promise<void> | void;
  runInterrupted?(runId: string, threadId: string): Promise<void> | void;
}
