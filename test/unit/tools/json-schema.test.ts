import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolJsonSchema } from '../../../src/tools/json-schema';

/** Every (key, value) pair anywhere in a JSON value. */
function walk(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) for (const v of node) walk(v, visit);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

describe('toolJsonSchema', () => {
  const Nested = z.object({
    count: z.number().int(),
    page: z.number().int().min(1).max(500).optional(),
    items: z.array(z.object({ id: z.number().int(), tags: z.array(z.string()).max(5) })),
    mode: z.enum(['a', 'b']).default('a'),
    ratio: z.number().min(-1).max(1),
    note: z.string().describe('Free text for the model'),
  });

  it('has no $schema at any level', () => {
    const schema = toolJsonSchema(Nested);
    const keys: string[] = [];
    walk(schema, (k) => keys.push(k));
    expect(keys).not.toContain('$schema');
    expect(z.toJSONSchema(Nested)).toHaveProperty('$schema'); // zod itself adds one
  });

  it('drops the ±2^53 bounds zod puts on every integer, at any depth', () => {
    const schema = toolJsonSchema(Nested);
    const bounds: number[] = [];
    walk(schema, (k, v) => {
      if ((k === 'minimum' || k === 'maximum') && typeof v === 'number') bounds.push(v);
    });
    expect(bounds.some((b) => Math.abs(b) >= Number.MAX_SAFE_INTEGER)).toBe(false);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.count).toEqual({ type: 'integer' });
    const item = (props.items.items as { properties: Record<string, unknown> }).properties;
    expect(item.id).toEqual({ type: 'integer' });
  });

  it('keeps the bounds a tool actually declares', () => {
    const props = toolJsonSchema(Nested).properties as Record<string, Record<string, unknown>>;
    expect(props.page).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    expect(props.ratio).toMatchObject({ type: 'number', minimum: -1, maximum: 1 });
    expect(
      (props.items.items as { properties: Record<string, Record<string, unknown>> }).properties
        .tags,
    ).toMatchObject({ maxItems: 5 });
  });

  it('describes the input side: fields with defaults or optional are not required; descriptions are kept', () => {
    const schema = toolJsonSchema(Nested);
    expect(schema.required).toEqual(['count', 'items', 'ratio', 'note']);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.mode).toMatchObject({ enum: ['a', 'b'], default: 'a' });
    expect(props.note).toMatchObject({ type: 'string', description: 'Free text for the model' });
  });

  it('advertises no regex pattern, while the zod schema still rejects what it does not match', () => {
    const Ref = z.object({
      ref: z
        .string()
        .regex(/^(?:f\d{1,9})?e\d{1,9}$/, 'a ref like e41')
        .describe('Element ref, e.g. e41.'),
    });
    const props = toolJsonSchema(Ref).properties as Record<string, Record<string, unknown>>;
    expect(props.ref).toEqual({ type: 'string', description: 'Element ref, e.g. e41.' });
    expect(Ref.safeParse({ ref: 'e41' }).success).toBe(true);
    const bad = Ref.safeParse({ ref: 'button 3' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe('a ref like e41');
  });

  it('keeps a property that happens to be named pattern', () => {
    const schema = toolJsonSchema(z.object({ pattern: z.string() }));
    expect(schema.properties).toEqual({ pattern: { type: 'string' } });
  });

  it('does not throw on types JSON Schema cannot express', () => {
    expect(() => toolJsonSchema(z.object({ when: z.date(), big: z.bigint() }))).not.toThrow();
  });

  it('keeps non-numeric values that happen to sit under a "minimum" key (a property named minimum)', () => {
    const schema = toolJsonSchema(z.object({ minimum: z.number().int(), maximum: z.string() }));
    expect(schema.properties).toEqual({
      minimum: { type: 'integer' },
      maximum: { type: 'string' },
    });
    expect(schema.required).toEqual(['minimum', 'maximum']);
  });
});
