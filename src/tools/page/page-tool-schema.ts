/**
 * The input schema of a page tool, as the model will see it. The page wrote it, so it is checked
 * and bounded before it reaches a provider or a digest: a plain JSON object describing an object
 * (what tools take), at most `MAX_SCHEMA_DEPTH` levels deep and `MAX_SCHEMA_BYTES` of JSON, and
 * compilable by the argument validator. A schema that fails is not trimmed into something else:
 * the tool is left out and the reason is kept for the log.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import type { JsonSchema } from '../../providers/types';

export const MAX_SCHEMA_DEPTH = 12;
export const MAX_SCHEMA_BYTES = 8 * 1024;
export const MAX_DESCRIPTION_CHARS = 2000;

export type BoundedSchema = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

/** Depth of nested objects and arrays, iteratively (a hostile schema may be very deep). */
function depthOver(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * `json` is the schema as the page serialized it (absent: the tool takes no input). Noise that
 * costs tokens and says nothing to the model (`$schema`) is dropped.
 */
export function boundPageSchema(json: string | undefined): BoundedSchema {
  if (json === undefined || json === '') return { ok: true, schema: emptySchema() };
  if (json.length > MAX_SCHEMA_BYTES)
    return { ok: false, reason: `its input schema is over ${MAX_SCHEMA_BYTES} bytes` };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'its input schema is not JSON' };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, reason: 'its input schema is not an object' };
  if (depthOver(raw, MAX_SCHEMA_DEPTH))
    return { ok: false, reason: `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels` };
  const { $schema: _drop, ...schema } = raw as Record<string, unknown>;
  if (schema.type === undefined) schema.type = 'object';
  if (schema.type !== 'object')
    return { ok: false, reason: 'its input schema does not describe an object' };
  if (schema.properties !== undefined && !isPlainObject(schema.properties))
    return { ok: false, reason: 'its input schema has malformed properties' };
  if (schema.properties === undefined) schema.properties = {};
  try {
    new Validator(schema as Schema, '2020-12', false);
  } catch {
    return { ok: false, reason: 'its input schema cannot be compiled' };
  }
  return { ok: true, schema: schema as JsonSchema };
}

export function emptySchema(): JsonSchema {
  return { type: 'object', properties: {} } as JsonSchema;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
