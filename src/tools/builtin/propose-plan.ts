import { z } from 'zod';
import { normalizePlanSite, readPlanAnswer } from '../../gatekeeper/plan';
import {
  PlanProposal,
  PlanResponse,
  type PlanSite,
  PlanWriteKind,
  type PlanWriteKind as Kind,
} from '../../protocol';
import type { AgentTool, ToolResult } from '../types';

const Site = z.object({
  site: z
    .string()
    .min(1)
    .max(300)
    .refine((s) => normalizePlanSite(s) !== null, {
      message: 'must be an http(s) origin such as https://example.com, or mcp:<server>',
    })
    .describe('The site: its origin (https://shop.example) or mcp:<server> for an MCP server.'),
  writes: z
    .array(PlanWriteKind)
    .max(4)
    .describe(
      'The kinds of write on this site: navigate (open or leave its pages, including where a link or form on another planned site leads here), click (click, hover, scroll, select, dialogs), type (text and keys), tool (an MCP server). Empty: read only.',
    ),
  why: z.string().max(300).optional().describe('Why the plan needs this site, in a few words.'),
});

const Params = z.object({
  summary: z
    .string()
    .min(1)
    .max(2_000)
    .describe('What you will do, in one or two sentences the user can approve.'),
  steps: z.array(z.string().min(1).max(300)).max(20).optional().describe('The steps, briefly.'),
  sites: z.array(Site).min(1).max(20).describe('Every site you will read or write.'),
});
type Params = z.infer<typeof Params>;

const KIND_ORDER: readonly Kind[] = ['navigate', 'click', 'type', 'tool'];

/** The proposal as the card shows it: sites as origins, one entry per site, kinds in order. */
export function proposalOf(params: Params): PlanProposal {
  const bySite = new Map<string, PlanSite>();
  for (const s of params.sites) {
    const site = normalizePlanSite(s.site);
    if (!site) continue; // refused by the schema; kept total for a direct caller
    const prev = bySite.get(site);
    const writes = new Set([...(prev?.writes ?? []), ...s.writes]);
    const why = prev?.why ?? s.why?.trim();
    bySite.set(site, {
      site,
      writes: KIND_ORDER.filter((k) => writes.has(k)),
      ...(why ? { why } : {}),
    });
  }
  return {
    summary: params.summary.trim(),
    steps: (params.steps ?? []).map((s) => s.trim()).filter(Boolean),
    sites: [...bySite.values()],
  };
}

function text(t: string): ToolResult {
  return { content: [{ type: 'text', text: t }] };
}

/**
 * Approval mode 'plan' (issue 28 part 3): the model proposes the sites and kinds of write a task
 * needs; the user approves it once, narrows it, or rejects it. The run waits as an interaction,
 * so the wait survives a restart; the answer that approves also stores the plan in the run's
 * environment (ops-runs.ts), where the Gatekeeper reads it (src/gatekeeper/plan.ts). Offered
 * only in plan mode (environment.ts).
 */
export function createProposePlanTool(): AgentTool<Params> {
  return {
    name: 'propose_plan',
    label: 'Propose a plan',
    description:
      'Propose your plan for the task before acting: a summary, the steps, and every site you will use with the kinds of write on it. The user approves it once (or narrows it); then the writes it names run without asking, for this task. Anything outside the plan asks the user. Reading needs no plan.',
    parameters: Params,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    // Proposing is itself asking the user: there is nothing to approve.
    skipApproval: true,
    interaction: {
      kind: 'plan',
      prepare: (params) => proposalOf(params),
      validateResponse(payload, response) {
        const proposal = PlanProposal.safeParse(payload);
        const answer = PlanResponse.safeParse(response);
        if (!proposal.success) return 'the proposal is unreadable';
        if (!answer.success)
          return 'response must be {approved: true, sites?} or {rejected: true, note?}';
        const read = readPlanAnswer(proposal.data, answer.data);
        return read.kind === 'invalid' ? read.error : null;
      },
      complete(payload, response) {
        const read = readPlanAnswer(PlanProposal.parse(payload), PlanResponse.parse(response));
        if (read.kind === 'invalid')
          return { ...text(`Invalid answer: ${read.error}`), isError: true };
        if (read.kind === 'rejected')
          return text(
            `The user rejected the plan.${read.note ? ` Their note: ${read.note}` : ''} Do not act on it: propose a changed plan, or ask the user what they want instead.`,
          );
        const lines = read.sites.map(
          (s) => `- ${s.site}: ${s.writes.length ? s.writes.join(', ') : 'read only'}`,
        );
        return text(
          [
            `The user approved the plan.${read.note ? ` Their note: ${read.note}` : ''} For this task these writes run without asking:`,
            ...lines,
            'Anything else asks the user first ("not in the plan"); payments, uploads and data sent to other sites always ask. If the task needs more, propose a changed plan.',
          ].join('\n'),
        );
      },
    },
    async execute() {
      // Never called: the engine runs interaction tools through `interaction`.
      throw new Error('propose_plan runs as an interaction');
    },
  };
}
