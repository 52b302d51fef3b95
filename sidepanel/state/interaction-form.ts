import type { InteractionRequest } from '../../src/protocol';

/**
 * An interaction payload → a form the panel can render. Payloads come from the model (ask_user) or
 * a remote MCP server (elicitation), so everything is optional here and odd shapes degrade to a
 * single free-text answer rather than an empty card.
 */
export type FieldType = 'text' | 'choice' | 'confirm';

export interface FormField {
  id: string;
  label: string;
  type: FieldType;
  options: string[];
  required: boolean;
}

export interface InteractionForm {
  question: string;
  fields: FormField[];
  /** True when the payload had no usable fields and the form is one free-text answer. */
  freeText: boolean;
}

export type AnswerValue = string | boolean;

const asString = (v: unknown): string => (typeof v === 'string' ? v : '');

function field(raw: unknown, index: number): FormField | null {
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const options = Array.isArray(o.options)
    ? o.options.filter((x): x is string => typeof x === 'string')
    : [];
  let type: FieldType = o.type === 'choice' || o.type === 'confirm' ? o.type : 'text';
  if (type === 'choice' && options.length === 0) type = 'text';
  return {
    id: asString(o.id) || `field${index + 1}`,
    label: asString(o.label) || asString(o.question),
    type,
    options,
    required: o.required === true,
  };
}

/** MCP elicitation: a flat JSON schema of primitive properties. */
function fromSchema(schema: unknown): FormField[] {
  const props = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!props || typeof props !== 'object') return [];
  const required = new Set(
    ((schema as { required?: unknown }).required as string[] | undefined) ?? [],
  );
  return Object.entries(props).map(([id, p]) => {
    const o = (p ?? {}) as Record<string, unknown>;
    const options = Array.isArray(o.enum) ? o.enum.map(String) : [];
    const type: FieldType =
      o.type === 'boolean' ? 'confirm' : options.length > 0 ? 'choice' : 'text';
    return {
      id,
      label: asString(o.title) || asString(o.description) || id,
      type,
      options,
      required: required.has(id),
    };
  });
}

const SINGLE_ANSWER: FormField = {
  id: 'answer',
  label: '',
  type: 'text',
  options: [],
  required: true,
};

export function interactionForm(
  req: Pick<InteractionRequest, 'kind' | 'payload'>,
): InteractionForm {
  const p = (req.payload && typeof req.payload === 'object' ? req.payload : {}) as Record<
    string,
    unknown
  >;
  const question =
    asString(p.question) ||
    asString(p.message) ||
    (typeof req.payload === 'string' ? req.payload : '');
  let fields: FormField[] = [];
  if (Array.isArray(p.fields))
    fields = p.fields.map(field).filter((f): f is FormField => f !== null);
  else if (req.kind === 'elicitation') fields = fromSchema(p.requestedSchema);
  // Ids must be unique for the answers object; later duplicates get a suffix.
  const seen = new Set<string>();
  fields = fields.map((f) => {
    let id = f.id;
    for (let n = 2; seen.has(id); n++) id = `${f.id}_${n}`;
    seen.add(id);
    return { ...f, id };
  });
  return fields.length > 0
    ? { question, fields, freeText: false }
    : { question, fields: [SINGLE_ANSWER], freeText: true };
}

export function initialAnswers(form: InteractionForm): Record<string, AnswerValue> {
  const out: Record<string, AnswerValue> = {};
  for (const f of form.fields) out[f.id] = f.type === 'confirm' ? false : '';
  return out;
}

export function missingRequired(
  form: InteractionForm,
  answers: Record<string, AnswerValue>,
): string[] {
  return form.fields
    .filter((f) => f.required && f.type !== 'confirm' && !String(answers[f.id] ?? '').trim())
    .map((f) => f.id);
}

/**
 * The `interaction.response` payload, in the shape each kind validates:
 * - ask_user (src/tools/builtin/ask-user.ts): `{ answer }` for a free-text question, `{ answers }` for
 *   a form, `{ cancelled: true }` when dismissed;
 * - elicitation (MCP): `{ action: 'accept', content }` or `{ action: 'decline' }`.
 */
export function interactionResponse(
  kind: InteractionRequest['kind'],
  form: InteractionForm,
  answers: Record<string, AnswerValue> | null,
): Record<string, unknown> {
  if (kind === 'elicitation')
    return answers ? { action: 'accept', content: answers } : { action: 'decline' };
  if (!answers) return { cancelled: true };
  if (form.freeText) return { answer: String(answers[SINGLE_ANSWER.id] ?? '') };
  return { answers };
}
