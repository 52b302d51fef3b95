import { z } from 'zod';
import { ApprovalMode, Id, Locale, ProviderKind } from './common';

/** A provider entry in a settings patch. An omitted apiKey keeps the stored secret. */
export const ProviderPatch = z.union([
  z.object({ id: Id, remove: z.literal(true) }),
  z.object({
    id: Id,
    kind: ProviderKind,
    baseURL: z.string().url().max(2000).optional(),
    apiKey: z.string().max(4000).optional(),
    label: z.string().max(200).optional(),
    /** Capability overrides for custom endpoints (models missing from the catalog). */
    models: z
      .array(
        z.object({
          id: z.string().min(1).max(200),
          toolUse: z.boolean().optional(),
          vision: z.boolean().optional(),
          contextWindow: z.number().int().positive().optional(),
          maxOutputTokens: z.number().int().positive().optional(),
        }),
      )
      .max(100)
      .optional(),
  }),
]);

export const McpServerPatch = z.union([
  z.object({ id: Id, remove: z.literal(true) }),
  z.object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'server id: letters, digits, _ and - (≤ 40)'),
    url: z.string().url().max(2000),
    token: z.string().max(4000).optional(),
    enabled: z.boolean(),
    /** Absent: keep the stored list. `null`: clear it (every tool is offered again). */
    allowedTools: z.array(z.string().max(200)).max(500).nullable().optional(),
    label: z.string().max(200).optional(),
    /** 'per_thread' gives each thread its own session (servers that keep state, spec/000). */
    isolation: z.enum(['shared', 'per_thread']).optional(),
    /** OAuth with a pre-registered client (servers without dynamic registration). `null` clears it. */
    oauthClientId: z.string().min(1).max(500).nullable().optional(),
    /** Its secret: write-only like `token` (omitted keeps, empty deletes). */
    oauthClientSecret: z.string().max(4000).optional(),
  }),
]);

export const ModelRef = z.object({ providerId: Id, model: z.string().min(1).max(200) });
export type ModelRef = z.infer<typeof ModelRef>;

export const SettingsPatch = z.object({
  providers: z.array(ProviderPatch).max(50).optional(),
  defaultModel: ModelRef.optional(),
  taskModel: ModelRef.nullable().optional(),
  tokenBudget: z.number().int().positive().nullable().optional(),
  approvalMode: ApprovalMode.optional(),
  locale: Locale.nullable().optional(),
  mcpServers: z.array(McpServerPatch).max(50).optional(),
  /** Keel as an MCP server (docs/mcp-server.md): the worker connects to local bridges when on. */
  mcpBridge: z
    .object({
      enabled: z.boolean().optional(),
      port: z.number().int().min(1024).max(65_000).optional(),
    })
    .optional(),
  /** Sites never recorded (issue 30): the whole list, replacing the stored one. */
  privateSites: z.array(z.string().min(1).max(2000)).max(500).optional(),
});
export type SettingsPatch = z.infer<typeof SettingsPatch>;

export const PublicProvider = z.object({
  id: z.string(),
  kind: ProviderKind,
  baseURL: z.string().optional(),
  label: z.string().optional(),
  hasApiKey: z.boolean(),
  models: z
    .array(
      z.object({
        id: z.string(),
        toolUse: z.boolean().optional(),
        vision: z.boolean().optional(),
        contextWindow: z.number().optional(),
        maxOutputTokens: z.number().optional(),
      }),
    )
    .optional(),
});
export type PublicProvider = z.infer<typeof PublicProvider>;

export const PublicMcpServer = z.object({
  id: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  hasToken: z.boolean(),
  allowedTools: z.array(z.string()).optional(),
  label: z.string().optional(),
  isolation: z.enum(['shared', 'per_thread']).optional(),
  oauthClientId: z.string().optional(),
  hasOAuthClientSecret: z.boolean().optional(),
  /** Live connection state, when known (from the MCP manager). */
  status: z
    .object({
      state: z.string(),
      message: z.string().optional(),
      toolCount: z.number().optional(),
      /** OAuth servers: never a token. `error`: why the last sign-in failed. */
      auth: z
        .object({
          signedIn: z.boolean(),
          account: z.string().optional(),
          expiresAt: z.number().optional(),
          renewable: z.boolean().optional(),
          scope: z.string().optional(),
          signedInAt: z.number().optional(),
          signingIn: z.boolean().optional(),
          error: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});

/** One outside MCP client paired (or asking to pair) with Keel through the bridge. */
export const BridgePairing = z.object({
  pairingId: z.string(),
  clientName: z.string(),
  status: z.enum(['pending', 'allowed', 'denied', 'revoked']),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type BridgePairing = z.infer<typeof BridgePairing>;

/** Settings as every UI sees them: no secret, only `hasApiKey` / `hasToken`. */
export const PublicSettings = z.object({
  providers: z.array(PublicProvider),
  defaultModel: ModelRef.nullable(),
  taskModel: ModelRef.nullable(),
  tokenBudget: z.number().nullable(),
  approvalMode: ApprovalMode,
  locale: Locale.nullable(),
  mcpServers: z.array(PublicMcpServer),
  siteRules: z.array(
    z.object({
      origin: z.string(),
      rule: z.enum(['ask', 'allow', 'block']),
      updatedAt: z.number(),
      /** The user counts this site's page tools (WebMCP) as reads. */
      pageToolsRead: z.boolean().optional(),
    }),
  ),
  /**
   * Site secrets (issue 28): what is stored, never a value. `placeholder` is what the model
   * writes (`{{secret:github.com/password}}`).
   */
  siteSecrets: z
    .array(
      z.object({
        origin: z.string(),
        name: z.string(),
        kind: z.enum(['text', 'password', 'totp']),
        placeholder: z.string(),
        updatedAt: z.number(),
      }),
    )
    .optional(),
  /**
   * Keel as an MCP server (docs/mcp-server.md): whether the worker connects to local bridges,
   * the first port it tries, and the pairings (never their secrets).
   */
  mcpBridge: z
    .object({
      enabled: z.boolean(),
      port: z.number(),
      pairings: z.array(BridgePairing),
    })
    .optional(),
  /** Origins marked private: tasks there are not recorded (issue 30). */
  privateSites: z.array(z.string()).optional(),
  /** Imported skills (descriptions only; bodies stay in the store). */
  skills: z
    .array(z.object({ name: z.string(), description: z.string(), updatedAt: z.number() }))
    .optional(),
});
export type PublicSettings = z.infer<typeof PublicSettings>;
