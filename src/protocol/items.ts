import { z } from 'zod';
import { ImageInput, ProviderStopReason, ToolCallState, Usage } from './common';

/**
 * `Item` is a persisted node as the UI sees it (PROTOCOL.md). The store keeps more per node
 * (parentId, threadId, runId, schema version); `toItem` in the engine projects a node onto this.
 */

/** Content the model saw from a tool: text or an image (images only reach models with vision). */
export const ContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), mimeType: z.string(), dataBase64: z.string() }),
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** One thinking / reasoning block as the provider sent it; opaque fields are kept for replay. */
export const ThinkingPart = z.object({
  text: z.string(),
  /** Anthropic: the block's signature, required when the block is sent back. */
  signature: z.string().optional(),
  /** Anthropic redacted_thinking payload (text is empty then). */
  redactedData: z.string().optional(),
  /** OpenAI Responses: the reasoning item id and its encrypted content, when returned. */
  itemId: z.string().optional(),
  encryptedContent: z.string().optional(),
  /** Which provider kind produced it: thinking is only replayed to the same kind. */
  providerKind: z.string().optional(),
});
export type ThinkingPart = z.infer<typeof ThinkingPart>;

const base = { id: z.string(), createdAt: z.number() };

export const UserMessageItem = z.object({
  ...base,
  kind: z.literal('user_message'),
  text: z.string(),
  images: z.array(ImageInput).optional(),
  steered: z.boolean().optional(),
});

export const AssistantMessageItem = z.object({
  ...base,
  kind: z.literal('assistant_message'),
  text: z.string(),
  thinking: z.string().optional(),
  thinkingParts: z.array(ThinkingPart).optional(),
  providerStopReason: ProviderStopReason,
  usage: Usage.optional(),
  model: z.string().optional(),
  providerId: z.string().optional(),
  costUsd: z.number().optional(),
  /** The tool calls this message requested, with ids already repaired (unique in the thread). */
  toolCalls: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        args: z.unknown(),
        rawArgs: z.string().optional(),
      }),
    )
    .optional(),
  /** True while the message streams (only on `item.start`; persisted messages never have it). */
  streaming: z.boolean().optional(),
  /** Set when the message comes from a planning round (its intent tag is already stripped). */
  round: z.enum(['plan', 'continuation']).optional(),
});

export const ToolCallItem = z.object({
  ...base,
  kind: z.literal('tool_call'),
  toolCallId: z.string(),
  /** The assistant message that requested this call (parallel calls share one). */
  assistantId: z.string().optional(),
  name: z.string(),
  label: z.string(),
  params: z.unknown(),
  state: ToolCallState,
  level: z.string().optional(),
  effects: z.string().optional(),
  visibility: z.string().optional(),
  /** Set for calls whose arguments were not valid JSON: the raw text the model sent. */
  rawArgs: z.string().optional(),
});

export const ToolResultItem = z.object({
  ...base,
  kind: z.literal('tool_result'),
  toolCallId: z.string(),
  name: z.string().optional(),
  ok: z.boolean(),
  content: z.array(ContentBlock),
  details: z.unknown().optional(),
  /** Why the call has no real result: the user denied it, it was interrupted, etc. */
  outcome: z
    .enum(['ok', 'error', 'denied', 'interrupted', 'invalid', 'lost', 'marked_done'])
    .optional(),
  /** Copied from the tool: 'internal' results (todo) are not shown as items. */
  visibility: z.string().optional(),
  /** Page / MCP content is untrusted: it reaches the model inside an untrusted-data block. */
  untrusted: z.boolean().optional(),
  /**
   * How many times a retry-safe call was started before this result (spec/004), when more than
   * once: transient failures (content script not injected yet, tab loading, frame detached) are
   * retried with backoff before the model sees an error. Absent = one attempt.
   */
  attempts: z.number().int().positive().optional(),
});

export const NoticeItem = z.object({
  ...base,
  kind: z.literal('notice'),
  code: z.string(),
  text: z.string(),
  /** Notices meant for the model too (e.g. the tool-failure breaker) are sent as user text. */
  forModel: z.boolean().optional(),
  /**
   * A compaction (code 'compaction'): the built context replaces every node up to and including
   * `summarizesUpTo` with `summary`. The nodes stay in the store and the UI.
   */
  summary: z.string().optional(),
  summarizesUpTo: z.string().optional(),
});

export const Item = z.discriminatedUnion('kind', [
  UserMessageItem,
  AssistantMessageItem,
  ToolCallItem,
  ToolResultItem,
  NoticeItem,
]);
export type Item = z.infer<typeof Item>;
export type UserMessageItem = z.infer<typeof UserMessageItem>;
export type AssistantMessageItem = z.infer<typeof AssistantMessageItem>;
export type ToolCallItem = z.infer<typeof ToolCallItem>;
export type ToolResultItem = z.infer<typeof ToolResultItem>;
export type NoticeItem = z.infer<typeof NoticeItem>;
export type ItemKind = Item['kind'];
