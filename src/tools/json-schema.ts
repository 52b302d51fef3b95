import { z } from 'zod';
import type { JsonSchema } from '../providers/types';

/**
 * The JSON Schema sent to the model, generated from the tool's zod schema so validation and the
 * advertised schema can never disagree. Noise that costs tokens and tells the model nothing
 * ($schema, the ±2^53 bounds zod puts on every integer) is removed, and so are regex `pattern`s:
 * a model writes a ref from the example in its description, not from `^(?:f(\d{1,9}))?…$`, and
 * the zod schema still rejects a malformed value on receipt with a message saying what it wants
 * (issue 26: the ref pattern alone was ~200 tokens of every request).
 */
export function toolJsonSchema(schema: z.ZodType): JsonSchema {
  const raw = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return strip(raw) as JsonSchema;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === '$schema') continue;
    if (k === 'pattern' && typeof v === 'string') continue;
    if (
      (k === 'minimum' || k === 'maximum') &&
      typeof v === 'number' &&
      Math.abs(v) >= Number.MAX_SAFE_INTEGER
    )
      continue;
    out[k] = strip(v);
  }
  return out;
}
