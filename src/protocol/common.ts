import { z } from 'zod';

/**
 * Shapes shared by ops and events (PROTOCOL.md). Ids are opaque strings; every schema here is the
 * single source of truth for the matching TypeScript type (`z.infer`).
 */

export const Id = z.string().min(1).max(200);

/** Bounds that keep a single op from exhausting the worker; they are generous for real use. */
export const LIMITS = {
  /** Serialized size of one op. Images are base64, so this bounds a few screenshots' worth. */
  maxOpBytes: 24 * 1024 * 1024,
  maxTextChars: 200_000,
  maxImages: 8,
  maxImageBase64Chars: 8 * 1024 * 1024,
} as const;

export const ImageInput = z.object({
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
  dataBase64: z
    .string()
    .min(1)
    .max(LIMITS.maxImageBase64Chars)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'dataBase64 must be base64'),
});
export type ImageInput = z.infer<typeof ImageInput>;

export const UserInput = z.object({
  text: z.string().max(LIMITS.maxTextChars),
  images: z.array(ImageInput).max(LIMITS.maxImages).optional(),
});
export type UserInput = z.infer<typeof UserInput>;

export const RunState = z.enum([
  'queued',
  'streaming_model',
  'executing_tool',
  'waiting_approval',
  'waiting_interaction',
  'paused_uncertain',
  'budget_paused',
  'interrupted',
  'completed',
  'failed',
  /** The user took the page over (run.takeOver) and holds it until run.handBack (issue 28). */
  'user_control',
]);
export type RunState = z.infer<typeof RunState>;

export const StopReason = z.enum([
  'end',
  'max_tokens',
  'content_filter',
  'refusal',
  'interrupted',
  'budget_pause',
  'tool_failures',
  'paused_uncertain',
  'error',
]);
export type StopReason = z.infer<typeof StopReason>;

/** What the provider said about why one message ended (kept on every assistant message). */
export const ProviderStopReason = z.enum([
  'end',
  'tool_use',
  'max_tokens',
  'content_filter',
  'refusal',
  'error',
  'interrupted',
]);
export type ProviderStopReason = z.infer<typeof ProviderStopReason>;

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const Decision = z.enum(['allow_once', 'allow_site', 'deny', 'deny_stop']);
export type Decision = z.infer<typeof Decision>;

export const SiteRule = z.enum(['ask', 'allow', 'block']);
export type SiteRule = z.infer<typeof SiteRule>;

export const ToolLevel = z.enum(['L0', 'L1', 'L2', 'mcp', 'builtin']);
export type ToolLevel = z.infer<typeof ToolLevel>;

export const ToolEffects = z.enum(['read', 'write']);
export type ToolEffects = z.infer<typeof ToolEffects>;

export const ProviderKind = z.enum(['anthropic', 'openai', 'openai-responses']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/**
 * 'ask': every write asks unless its site is allowed (trusted input still asks each time);
 * 'act': an allowed site covers trusted input too; 'plan': the model proposes a plan naming its
 * sites and kinds of write, the user approves it once, and writes it names run unasked for that
 * turn (src/gatekeeper/plan.ts).
 */
export const ApprovalMode = z.enum(['ask', 'act', 'plan']);
export type ApprovalMode = z.infer<typeof ApprovalMode>;

export const Locale = z.enum(['en', 'zh-CN']);
export type Locale = z.infer<typeof Locale>;

export const ToolCallState = z.enum([
  'start',
  'approval_required',
  'executing',
  'result',
  'rejected',
  'invalid',
]);
export type ToolCallState = z.infer<typeof ToolCallState>;

export const TodoStatus = z.enum(['pending', 'in_progress', 'done']);
export const Todo = z.object({ id: z.string(), text: z.string(), status: TodoStatus });
export type Todo = z.infer<typeof Todo>;
