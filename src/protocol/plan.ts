import { z } from 'zod';

/**
 * A site plan on the wire (approval mode 'plan', issue 28 part 3): the payload of a `plan`
 * interaction and the user's answer to it. The Gatekeeper's reading of an approved plan is in
 * src/gatekeeper/plan.ts.
 */

/**
 * The kinds of write a plan can name for a site:
 * - navigate: open, leave or reload its pages (browser_navigate, back, tabs), and where a page's
 *   own navigation or request lands after an action elsewhere;
 * - click: pointer actions and choices (click, hover, scroll, select, dialogs, mouse);
 * - type: text and keys (browser_type, press_key, keyboard);
 * - tool: an MCP server's tools (the site is `mcp:<server>`).
 */
export const PlanWriteKind = z.enum(['navigate', 'click', 'type', 'tool']);
export type PlanWriteKind = z.infer<typeof PlanWriteKind>;

/** One site of a plan: its permission key and the kinds of write it may take (none: read only). */
export const PlanSite = z.object({
  /** An http(s) origin (`https://github.com`) or `mcp:<server>`. */
  site: z.string().min(1).max(300),
  writes: z.array(PlanWriteKind).max(4),
  /** Why the plan needs this site, in the model's words (shown on the card, untrusted). */
  why: z.string().max(300).optional(),
});
export type PlanSite = z.infer<typeof PlanSite>;

/** The `plan` interaction's payload: what the model proposes. */
export const PlanProposal = z.object({
  summary: z.string().min(1).max(2_000),
  steps: z.array(z.string().min(1).max(300)).max(20),
  sites: z.array(PlanSite).min(1).max(20),
});
export type PlanProposal = z.infer<typeof PlanProposal>;

/**
 * The user's answer: approve as proposed, approve with the sites narrowed (each site and kind
 * must be in the proposal: an edit can take away, never add), or reject with a note.
 */
export const PlanResponse = z.union([
  z.object({
    approved: z.literal(true),
    sites: z.array(PlanSite).max(20).optional(),
    note: z.string().max(5_000).optional(),
  }),
  z.object({ rejected: z.literal(true), note: z.string().max(5_000).optional() }),
]);
export type PlanResponse = z.infer<typeof PlanResponse>;

/** A plan the user approved: part of the run's environment, so a restart resumes under it. */
export interface ApprovedPlan {
  sites: PlanSite[];
  /** The `plan` interaction that approved it. */
  interactionId: string;
  approvedAt: number;
}
