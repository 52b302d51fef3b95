/**
 * What the page-world registry (content-scripts/webmcp/page-registry.ts) hands to the service
 * worker, and back. Everything in it was written by the page, which can also forge the whole
 * answer: it is parsed and bounded here, used as data, and grants nothing. Permission comes from
 * the tab's origin as Chrome reports it, never from these messages.
 */
import { z } from 'zod';

export { BRIDGE_KEY } from './bridge-key';

const short = z.string().max(200);
const text = z.string().max(20_000);

/** One control of a declarative `<form toolname>`, as the page shows it. */
export const FormField = z.object({
  name: short,
  /** `input` type attribute (text, email, number, checkbox, radio…), `select` or `textarea`. */
  control: short,
  required: z.boolean(),
  description: text.optional(),
  /** A select's or radio group's values. */
  options: z.array(short).max(200).optional(),
  multiple: z.boolean().optional(),
});
export type FormField = z.infer<typeof FormField>;

export const ListedTool = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('imperative'),
    name: short,
    title: short.optional(),
    description: text,
    /** JSON text of the input schema (bounded and parsed in page-tool-schema.ts). */
    inputSchema: z.string().max(200_000).optional(),
    readOnlyHint: z.boolean().optional(),
    untrustedContentHint: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal('form'),
    name: short,
    description: text,
    autosubmit: z.boolean(),
    fields: z.array(FormField).max(100),
  }),
]);
export type ListedTool = z.infer<typeof ListedTool>;

export const ToolListing = z.object({
  /** A random id of the document (one per load): a call names it, so a reload drops the tools. */
  docId: z.string().max(64),
  tools: z.array(z.unknown()).max(200),
});

export const CallOutcome = z.union([
  z.object({ ok: z.literal(true), text: z.string() }),
  z.object({
    ok: z.literal(false),
    code: z.enum(['gone', 'navigated', 'aborted', 'failed']),
    error: z.string(),
  }),
]);
export type CallOutcome = z.infer<typeof CallOutcome>;

/** The bridge the registry defines in the page's world (the page can see and replace it). */
export interface PageBridge {
  list(): { docId: string; tools: ListedTool[] };
  call(docId: string, name: string, args: unknown, callId: string): Promise<CallOutcome>;
  abort(callId: string): void;
}
