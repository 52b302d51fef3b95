import { Validator, type Schema } from '@cfworker/json-schema';
import { z } from 'zod';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpElicitationPayload, McpElicitationResponse } from './types';

/**
 * MCP elicitation (form mode) as an engine interaction. The server's `elicitation/create` becomes
 * `interaction.request{kind:'elicitation', payload: McpElicitationPayload}`; the UI answers with
 * `interaction.response{response: McpElicitationResponse}`:
 *   { action: 'accept', content: { field: value, … } }   values: string | number | boolean | string[]
 *   { action: 'decline' }                                the user said no
 *   { action: 'cancel' }                                 the user dismissed the form
 * Defaults of the requested schema are filled in for accepted fields the user left out.
 */

const Value = z.union([
  z.string().max(20_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(20_000)).max(100),
]);

export const McpElicitationResponseSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), Value).default({}) }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

/** The MCP result for the user's response; anything unreadable counts as a dismissal. */
export function toElicitResult(response: unknown): ElicitResult {
  const parsed = McpElicitationResponseSchema.safeParse(response);
  if (!parsed.success) return { action: 'cancel' };
  const r: McpElicitationResponse = parsed.data;
  return r.action === 'accept'
    ? { action: 'accept', content: { ...r.content } }
    : { action: r.action };
}

/**
 * For the engine (or the UI) before it accepts an `interaction.response` of kind elicitation:
 * null when the response is well formed and, if accepted, its content satisfies the requested
 * schema (after defaults); otherwise a message for the user.
 */
export function validateElicitationResponse(payload: unknown, response: unknown): string | null {
  const parsed = McpElicitationResponseSchema.safeParse(response);
  if (!parsed.success)
    return "response must be {action:'accept', content:{…}}, {action:'decline'} or {action:'cancel'}";
  if (parsed.data.action !== 'accept') return null;
  const schema = (payload as Partial<McpElicitationPayload> | null)?.requestedSchema;
  if (!schema || typeof schema !== 'object') return null;
  const content = withDefaults(schema, parsed.data.content);
  try {
    const result = new Validator(schema as Schema, '2020-12', false).validate(content);
    if (result.valid) return null;
    return result.errors
      .filter((e) => e.instanceLocation !== '#' || e.keyword === 'required')
      .map((e) => `${e.instanceLocation.replace(/^#\/?/, '') || 'form'}: ${e.error}`)
      .slice(0, 5)
      .join('; ');
  } catch {
    return null; // A schema the validator cannot read: the server validates what it receives.
  }
}

function withDefaults(schema: object, content: Record<string, unknown>): Record<string, unknown> {
  const out = { ...content };
  const props = (schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  for (const [key, prop] of Object.entries(props)) {
    if (out[key] === undefined && prop && typeof prop === 'object' && prop.default !== undefined)
      out[key] = prop.default;
  }
  return out;
}
