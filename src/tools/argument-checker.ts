import { Validator, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import type { JsonSchema } from '../providers/types';

/**
 * A checker of arguments against a remote tool's JSON Schema (an MCP server's, a page's), with
 * @cfworker/json-schema (no eval: MV3 forbids it). It returns null when the arguments are valid,
 * else what is wrong, for the model to correct; a schema that cannot be compiled checks nothing
 * (the remote side validates its own input; ours is an early, friendlier error).
 */
export function argumentChecker(schema: JsonSchema): (args: unknown) => string | null {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, draftOf(schema.$schema), false);
  } catch {
    return () => null;
  }
  return (args) => {
    try {
      const result = validator.validate(args);
      if (result.valid) return null;
      const specific = result.errors.filter(
        (e) => e.instanceLocation !== '#' || e.keyword === 'required' || e.keyword === 'type',
      );
      return (specific.length > 0 ? specific : result.errors)
        .slice(0, 5)
        .map((e) => `${e.instanceLocation.replace(/^#\/?/, '') || '(arguments)'}: ${e.error}`)
        .join('; ');
    } catch {
      return null;
    }
  };
}

function draftOf(uri: unknown): SchemaDraft {
  if (typeof uri !== 'string') return '2020-12';
  if (uri.includes('draft-04')) return '4';
  if (uri.includes('draft-07') || uri.includes('draft-06')) return '7';
  if (uri.includes('2019-09')) return '2019-09';
  return '2020-12';
}
