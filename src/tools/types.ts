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
  | { kind: 'mcp'; serverId: string; endpoint: string; authIdentity: string }
  /**
   * A tool a page registered (WebMCP): it runs in a document of `origin` and nowhere else.
   * `pageTool` is the page's own name for it; `readOnlyHint` is the page's claim, shown on the
   * card and never trusted (the Gatekeeper judges page tools as writes unless the user marked
   * the site's tools as reads).
   */
  | { kind: 'page'; origin: string; pageTool: string; readOnlyHint: boolean };

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

/** What a call is about, as `resolveTarget` needs it (no effects can be delivered from here). */
export interface ToolCallInfo {
  threadId: string;
  runId: string;
  /** The thread's tab: the active tab when the turn started (tools target it unless told otherwise). */
  tabId?: number;
  /** Capabilities of the model in use (tools adapt their content, e.g. screenshots need vision). */
  model: { vision: boolean };
}

/** Per-call context the engine passes to a tool's `execute`. */
export interface ToolCallContext extends ToolCallInfo {
  /**
   * Ask the user something while the call runs (MCP elicitation). The request is persisted and
   * shown like any interaction; the promise resolves with the user's response, or rejects when
   * the run is interrupted. If the worker restarts meanwhile the call cannot continue: the user's
   * answer is then given to the model with a note to re-issue the call only if that is safe.
   */
  requestInteraction?(kind: 'elicitation', payload: unknown): Promise<unknown>;
  /**
   * Permission at the moment of effect (docs/permissions.md "Where each decision is made"). The
   * verdict before the call was a prediction; a tool that delivers input or causes a navigation
   * or request asks the gate about the *receiver* just before each effect (the frame under the
   * point, the focused frame, the real destination) and delivers only on `allow`. On `hold` it
   * delivers nothing more and returns `ToolResult.held`; on `deny` it stops with an error.
   * The engine always supplies it; outside the engine use `openGate()` only in tests.
   */
  gate: ReceiverGate;
  /**
   * Set when this execution continues a call that was held and then approved: the `resume`
   * value the tool put in `ToolResult.held` (e.g. how many keys were already delivered), so it
   * does not repeat what already reached the page.
   */
  resume?: unknown;
}

/** What kind of effect reaches a receiver. */
export type ReceiverEffect =
  /** Input events (synthetic or trusted) delivered to a document: judged with the tool's level. */
  | 'input'
  /** A navigation or a request the action causes: judged as a DOM-level write on the destination. */
  | 'destination';

export type ReceiverVerdict =
  | { kind: 'allow'; reason: string }
  /** Not covered by a rule or by this call's approval: stop and ask the user about this receiver. */
  | { kind: 'hold'; reason: string }
  /** Never (blocked site, browser page, forbidden): stop; the model is told. */
  | { kind: 'deny'; reason: string };

/**
 * Contract: `check` is synchronous, pure over the rules and approvals captured when the call was
 * dispatched, and never throws. An approval covers the receiver it named (the judged target, or a
 * receiver approved after a hold), not whatever the page puts in its place.
 */
export interface ReceiverGate {
  check(receiver: ToolTarget, effect: ReceiverEffect): ReceiverVerdict;
  /**
   * What `check(…, 'destination')` lets through, known before the action, for a guard that must
   * be written up front (declarativeNetRequest rules, guard-policy.ts). Pure like `check`; an
   * origin absent from the list is held (or denied) by `check`. Optional: a gate without it
   * runs its calls unguarded (tests that call a tool directly).
   */
  destinations?(): DestinationAllowance;
}

/**
 * Destinations a call reaches without asking: `any` (a read: it may not cause navigations worth
 * asking about) or the listed origins (allow rules, and origins this call's approvals named).
 */
export type DestinationAllowance =
  | { kind: 'any' }
  | { kind: 'origins'; origins: readonly string[] };

/**
 * An effect the tool did not deliver because the gate said `hold`. The engine turns it into an
 * approval naming `target` (the real receiver); on approval the call runs again with that
 * receiver covered and `ctx.resume` set to `resume`; on denial the model gets `what`.
 */
export interface HeldEffect {
  /** The receiver: the frame under the point, the focused frame, the navigation's destination. */
  target: ToolTarget;
  /** Plain words for the card and the model: "the click would land in a frame from https://b.example". */
  what: string;
  /** What already reached a page before the hold ("typed 5 of 12 characters into …"), if anything. */
  partial?: string;
  /** JSON the tool wants back as `ctx.resume` when it runs again after approval (bounded, ≤ 4 KB). */
  resume?: unknown;
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
  /** The tool stopped before an effect the gate held (`ReceiverGate`): the engine asks the user. */
  held?: HeldEffect;
}

/**
 * Tools that need the user (ask_user, MCP elicitation) do not run `execute` directly: the engine
 * persists an interaction from `prepare`, shows it, and builds the result from the response
 * with `complete`. That way the wait survives a service-worker restart.
 */
export interface InteractionPreparer<P = unknown> {
  kind: 'ask_user' | 'elicitation' | 'takeover' | 'plan';
  prepare(params: P): unknown;
  /** Validate a user's response; return an error message to reject it. */
  validateResponse?(payload: unknown, response: unknown): string | null;
  complete(payload: unknown, response: unknown, seen?: InteractionSeen): ToolResult;
}

/** What the engine saw when the answer came (pure data, so `complete` stays pure). */
export interface InteractionSeen {
  /**
   * `takeover` only: the fresh look at the page as the user handed it back, for the model (its
   * URL and title now, whether they changed; untrusted parts already wrapped). Never what the
   * user typed.
   */
  freshLook?: string;
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
  /**
   * Offered on demand (docs/tools.md "Tools on demand"): requests carry only this one-line brief,
   * in load_tools' list, until the model loads the tool or calls it. For rarely needed tools,
   * whose full definitions would otherwise be re-sent with every request of every task.
   */
  onDemand?: { brief: string };
  interaction?: InteractionPreparer<P>;
  resolveTarget?(params: P, ctx: ToolCallInfo): Promise<ToolTarget>;
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
  interactionKind?: 'ask_user' | 'elicitation' | 'takeover' | 'plan';
  /** Present only on tools offered on demand (absent otherwise, so other digests are unchanged). */
  onDemand?: { brief: string };
}

/**
 * Lifecycle hooks a tool family can register (L2 detaches the debugger when a run ends or is
 * interrupted; MCP closes per-thread sessions).
 */
export interface ToolLifecycle {
  runEnded?(runId: string, threadId: string): Promise<void> | void;
  runInterrupted?(runId: string, threadId: string): Promise<void> | void;
  /** The user got the page (Take over, request_takeover): let go of it until the run goes on. */
  runHandedOver?(runId: string, threadId: string): Promise<void> | void;
}
