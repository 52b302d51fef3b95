import type { ContentBlock, ProviderKind, ThinkingPart, Usage } from '../protocol';

/**
 * The Provider boundary (ARCHITECTURE.md "Providers"): every model API is reduced to one request
 * shape and one normalized stream. The engine never sees SDK types.
 */

/** A JSON Schema object as sent to the model for a tool's parameters. */
export type JsonSchema = { [key: string]: unknown };

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ProviderToolCall {
  id: string;
  name: string;
  /** Parsed arguments (an object). Calls whose JSON did not parse are sent as `{}` plus rawArgs. */
  args: unknown;
}

/** The conversation as the engine builds it from the node path (leaf → root, reversed). */
export type ProviderMessage =
  | { role: 'user'; content: ContentBlock[] }
  | {
      role: 'assistant';
      text: string;
      thinking?: ThinkingPart[];
      toolCalls: ProviderToolCall[];
    }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      content: ContentBlock[];
      isError: boolean;
    };

export interface ProviderRequest {
  model: string;
  system: string;
  messages: ProviderMessage[];
  /** Empty when the model has no tool use, or a round runs without tools. */
  tools: ToolSpec[];
  /**
   * 'none' forbids tool calls while still declaring the tools (some APIs reject a history with
   * tool calls when no tools are declared). Used for the breaker's final reply. Default 'auto'.
   */
  toolChoice?: 'auto' | 'none';
  maxOutputTokens?: number;
  temperature?: number;
  /** Extended thinking / reasoning effort, when the model supports it. */
  thinking?: { budgetTokens: number } | null;
  /**
   * A stable key for the provider's prompt cache, the same for every request of a thread (its id):
   * OpenAI routes requests with the same `prompt_cache_key` to the same cache. Never a secret.
   */
  cacheKey?: string;
  signal: AbortSignal;
}

/** Why one model message ended, normalized. */
export type NormalizedStopReason =
  | 'end'
  | 'tool_use'
  | 'max_tokens'
  | 'content_filter'
  | 'refusal'
  | 'error';

export type ProviderErrorCode =
  | 'auth' // 401/403: the key is wrong; never retried
  | 'rate_limit' // 429
  | 'overloaded' // 529 / overloaded_error
  | 'server' // 5xx
  | 'network' // fetch failed, connection reset
  | 'bad_request' // 400/404/422: our request or the model name is wrong
  | 'aborted' // the run's AbortSignal fired
  | 'stream' // an error event mid-stream, or a malformed stream
  | 'unsupported'; // e.g. images for a model without vision (raised before any call)

export interface ProviderError {
  code: ProviderErrorCode;
  /** The provider's own message when it sent one; never contains the API key. */
  message: string;
  status?: number;
  /** Whether retrying the same request may succeed (only meaningful before the first token). */
  retryable: boolean;
  retryAfterMs?: number;
}

/**
 * The normalized stream. Order: deltas in arrival order; for each tool call `tool_call_start`
 * (index, id, name) before its `tool_call_delta`s and `tool_call_end`; `usage` any number of times
 * (each one is cumulative and replaces the previous); exactly one terminal event last: `stop` or
 * `error`.
 */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  /** A finished thinking block with its opaque replay data (signature, redacted data, ids). */
  | { type: 'thinking_block'; part: ThinkingPart }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argsFragment: string }
  | { type: 'tool_call_end'; index: number }
  | { type: 'usage'; usage: Usage }
  | { type: 'stop'; reason: NormalizedStopReason; providerReason?: string }
  | { type: 'error'; error: ProviderError };

/**
 * A configured model endpoint.
 *
 * Contract: `stream` never throws and never rejects; every failure (HTTP error, network, abort,
 * malformed data) arrives as a terminal `error` event. Retries of failures before the first token
 * happen inside `stream` (see retry.ts); after the first event has been yielded a failure ends
 * the stream with `error`, and the engine resumes the run from its last checkpoint.
 */
export interface Provider {
  readonly id: string;
  readonly kind: ProviderKind | 'scripted';
  stream(req: ProviderRequest): AsyncIterable<StreamEvent>;
}

/** Capabilities and prices of one model (catalog.ts), overridable per provider in settings. */
export interface ModelInfo {
  id: string;
  toolUse: boolean;
  vision: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens. Unknown models have no pricing (cost is then not shown). */
  pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  thinking?: boolean;
  /**
   * How thinking is requested when `ProviderRequest.thinking` is set: Anthropic `budget`
   * (`thinking.budget_tokens`) or `adaptive` (newer Claude models reject a budget); OpenAI `effort`
   * (`reasoning_effort` / `reasoning.effort`). Absent: the kind's default (budget / effort).
   */
  thinkingMode?: 'budget' | 'adaptive' | 'effort';
  /** False when the API rejects a non-default temperature (OpenAI reasoning models, newer Claude models). */
  temperature?: boolean;
}

/** How the engine obtains a live Provider for a provider id from settings (secrets resolved inside). */
export interface ProviderResolver {
  resolve(providerId: string): Promise<Provider | null>;
  modelInfo(providerId: string, model: string): Promise<ModelInfo>;
  /** A stable, secret-free description of the transport (kind, baseURL, credential ref): part of the run snapshot. */
  transportIdentity(
    providerId: string,
  ): Promise<{ kind: string; baseURL?: string; credentialRef?: string } | null>;
}
