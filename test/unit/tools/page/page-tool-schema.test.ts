import { describe, expect, it } from 'vitest';
import { formToolSchema } from '../../../../src/tools/page/form-schema';
import {
  boundPageSchema,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
} from '../../../../src/tools/page/page-tool-schema';

function nested(depth: number): unknown {
  let v: unknown = { type: 'string' };
  for (let i = 0; i < depth; i++) v = { type: 'object', properties: { x: v } };
  return v;
}

describe('page tool input schemas are validated and bounded', () => {
  it('keeps a plain object schema, without $schema', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    };
    expect(boundPageSchema(JSON.stringify(schema))).toEqual({
      ok: true,
      schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
  });

  it('gives a tool without a schema (or without a type) an object schema', () => {
    expect(boundPageSchema(undefined)).toEqual({
      ok: true,
      schema: { type: 'object', properties: {} },
    });
    expect(boundPageSchema('{"properties":{"n":{"type":"number"}}}')).toEqual({
      ok: true,
      schema: { type: 'object', properties: { n: { type: 'number' } } },
    });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['an array', '[]', 'not an object'],
    ['a string schema', '{"type":"string"}', 'does not describe an object'],
    ['malformed properties', '{"type":"object","properties":[1]}', 'malformed properties'],
    ['too deep', JSON.stringify(nested(MAX_SCHEMA_DEPTH)), `deeper than ${MAX_SCHEMA_DEPTH}`],
    [
      'too large',
      JSON.stringify({ type: 'object', description: 'x'.repeat(MAX_SCHEMA_BYTES) }),
      `over ${MAX_SCHEMA_BYTES} bytes`,
    ],
  ])('refuses %s', (_what, json, reason) => {
    const r = boundPageSchema(json);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toContain(reason);
  });

  it('measures depth without recursion (a hostile schema may nest thousands deep)', () => {
    const deep = `{"type":"object","a":${'{"a":'.repeat(1300)}1${'}'.repeat(1300)}}`;
    expect(deep.length).toBeLessThan(MAX_SCHEMA_BYTES);
    expect(boundPageSchema(deep)).toEqual({
      ok: false,
      reason: `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`,
    });
    // Objects of objects of arrays, as real forms of tools nest: kept.
    expect(boundPageSchema(JSON.stringify(nested(4))).ok).toBe(true);
  });
});

describe('a declarative form as a schema', () => {
  it('maps named controls to properties: types, formats, enums, required, descriptions', () => {
    expect(
      formToolSchema([
        { name: 'email', control: 'email', required: true, description: ' The address ' },
        { name: 'plan', control: 'select', required: false, options: ['weekly', 'monthly'] },
        { name: 'tags', control: 'select', required: false, options: ['a', 'b'], multiple: true },
        { name: 'size', control: 'radio', required: true, options: ['s', 'm', 's'] },
        { name: 'count', control: 'number', required: false },
        { name: 'agree', control: 'checkbox', required: true },
        { name: 'note', control: 'textarea', required: false },
        { name: 'site', control: 'url', required: false },
      ]),
    ).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', description: 'The address' },
        plan: { type: 'string', enum: ['weekly', 'monthly'] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        size: { type: 'string', enum: ['s', 'm'] },
        count: { type: 'number' },
        agree: { type: 'boolean' },
        note: { type: 'string' },
        site: { type: 'string', format: 'uri' },
      },
      required: ['email', 'size', 'agree'],
    });
  });

  it('leaves out buttons, hidden, file and password controls, unnamed and repeated names', () => {
    expect(
      formToolSchema([
        { name: 'go', control: 'submit', required: false },
        { name: 'csrf', control: 'hidden', required: true },
        { name: 'cv', control: 'file', required: false },
        { name: 'pw', control: 'password', required: true },
        { name: '', control: 'text', required: true },
        { name: 'q', control: 'text', required: false },
        { name: 'q', control: 'number', required: true },
      ]),
    ).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });
});
