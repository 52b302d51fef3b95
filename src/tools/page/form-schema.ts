/**
 * A declarative WebMCP tool (`<form toolname tooldescription>`) as an input schema: each named
 * control becomes a property — a checkbox a boolean, a number or range input a number, a select or
 * radio group an enum of its values (an array of them for a multiple select), anything else a
 * string (with the `format` its type implies). `required` controls are required. The descriptions
 * come from the page (`toolparamdescription`, the label) and travel as the page wrote them: the
 * whole tool is untrusted page content.
 */
import type { JsonSchema } from '../../providers/types';
import type { FormField } from './page-wire';

const FORMATS: Record<string, string> = {
  email: 'email',
  url: 'uri',
  date: 'date',
  time: 'time',
  'datetime-local': 'date-time',
};

/** Controls a form tool never exposes: buttons, and hidden or file inputs. */
const SKIPPED = new Set(['submit', 'button', 'reset', 'image', 'hidden', 'file', 'password']);

export function formToolSchema(fields: readonly FormField[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const f of fields) {
    if (!f.name || SKIPPED.has(f.control) || f.name in properties) continue;
    const prop = propertyOf(f);
    if (f.description?.trim()) prop.description = f.description.trim().slice(0, 500);
    properties[f.name] = prop;
    if (f.required) required.push(f.name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
  } as JsonSchema;
}

function propertyOf(f: FormField): JsonSchema {
  if (f.control === 'checkbox') return { type: 'boolean' };
  if (f.control === 'number' || f.control === 'range') return { type: 'number' };
  if ((f.control === 'select' || f.control === 'radio') && f.options?.length) {
    const values = [...new Set(f.options)];
    return f.multiple
      ? { type: 'array', items: { type: 'string', enum: values } }
      : { type: 'string', enum: values };
  }
  const format = FORMATS[f.control];
  return format ? { type: 'string', format } : { type: 'string' };
}

/** Whether a control is one `formToolSchema` exposes (the page world fills only those). */
export function isExposedControl(control: string): boolean {
  return !SKIPPED.has(control);
}
