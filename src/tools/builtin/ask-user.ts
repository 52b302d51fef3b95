import { z } from 'zod';
import type { AgentTool } from '../types';

const Field = z.object({
  id: z.string().min(1).max(40),
  label: z.string().min(1).max(300),
  type: z.enum(['text', 'choice', 'confirm']).default('text'),
  options: z.array(z.string().max(200)).max(20).optional(),
  required: z.boolean().optional(),
});

const AskParams = z.object({
  question: z
    .string()
    .min(1)
    .max(2000)
    .describe('What you need from the user, in one or two sentences'),
  fields: z
    .array(Field)
    .max(10)
    .optional()
    .describe('Optional form fields; without them the user answers in free text'),
});
type AskParams = z.infer<typeof AskParams>;

const Response = z.union([
  z.object({ cancelled: z.literal(true) }),
  z.object({ answer: z.string().max(20_000) }),
  z.object({ answers: z.record(z.string(), z.union([z.string().max(20_000), z.boolean()])) }),
]);

/**
 * Ask the user a question and wait for the answer. The form is itself the user's decision, so it
 * skips approval (spec/000 §4). It runs as an interaction: the engine persists the request and
 * the answer, so a service-worker restart in between loses neither.
 */
export function createAskUserTool(): AgentTool<AskParams> {
  return {
    name: 'ask_user',
    label: 'Ask you',
    description:
      'Ask the user for information only they have (a choice, a missing detail, a confirmation). The task waits for the answer.',
    parameters: AskParams,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    skipApproval: true,
    interaction: {
      kind: 'ask_user',
      prepare: (params) => ({ question: params.question, fields: params.fields ?? [] }),
      validateResponse(payload, response) {
        const parsed = Response.safeParse(response);
        if (!parsed.success) return 'response must be {answer}, {answers} or {cancelled: true}';
        const fields = (payload as { fields?: z.infer<typeof Field>[] }).fields ?? [];
        if ('answers' in parsed.data) {
          for (const f of fields) {
            if (
              f.required &&
              (parsed.data.answers[f.id] === undefined || parsed.data.answers[f.id] === '')
            ) {
              return `field "${f.label}" is required`;
            }
          }
        }
        return null;
      },
      complete(_payload, response) {
        const r = Response.parse(response);
        if ('cancelled' in r) {
          return {
            content: [{ type: 'text', text: 'The user dismissed the question without answering.' }],
          };
        }
        const text = 'answer' in r ? r.answer : JSON.stringify(r.answers);
        return { content: [{ type: 'text', text: `The user answered: ${text}` }] };
      },
    },
    async execute() {
      // Never called: the engine runs interaction tools through `interaction`.
      throw new Error('ask_user runs as an interaction');
    },
  };
}
