import { z } from 'zod';
import { Decision, Id, SiteRule, UserInput } from './common';
import { SettingsPatch } from './settings';
import { WorkflowInputMeta, WorkflowSchedule } from './workflows';

/**
 * Ops (UI → engine), PROTOCOL.md. Every op carries `clientId` (stable per UI instance) and
 * `submissionId` (unique per submission, reused on retry).
 */

const envelope = { clientId: Id, submissionId: Id };

export const Overrides = z.object({
  providerId: Id.optional(),
  model: z.string().max(200).optional(),
});

export const OpSchemas = {
  initialize: z.object({
    ...envelope,
    type: z.literal('initialize'),
    subscribe: z.array(z.string()).max(1000).optional(),
  }),
  'thread.create': z.object({
    ...envelope,
    type: z.literal('thread.create'),
    title: z.string().max(500).optional(),
  }),
  'thread.delete': z.object({ ...envelope, type: z.literal('thread.delete'), threadId: Id }),
  'thread.fork': z.object({
    ...envelope,
    type: z.literal('thread.fork'),
    threadId: Id,
    nodeId: Id,
  }),
  'thread.selectBranch': z.object({
    ...envelope,
    type: z.literal('thread.selectBranch'),
    threadId: Id,
    leafId: Id,
  }),
  'thread.subscribe': z.object({ ...envelope, type: z.literal('thread.subscribe'), threadId: Id }),
  'thread.unsubscribe': z.object({
    ...envelope,
    type: z.literal('thread.unsubscribe'),
    threadId: Id,
  }),
  'thread.setOptions': z.object({
    ...envelope,
    type: z.literal('thread.setOptions'),
    threadId: Id,
    options: z.object({
      planFirst: z.boolean().optional(),
      enabledSkills: z.array(z.string().max(200)).max(100).optional(),
    }),
  }),
  'turn.submit': z.object({
    ...envelope,
    type: z.literal('turn.submit'),
    threadId: Id,
    input: UserInput,
    overrides: Overrides.optional(),
    /** Branch from an earlier message (edit & resend): the new message goes under this node. */
    parentNodeId: Id.optional(),
  }),
  'turn.steer': z.object({
    ...envelope,
    type: z.literal('turn.steer'),
    threadId: Id,
    expectedTurnId: Id,
    input: UserInput,
  }),
  'turn.enqueue': z.object({
    ...envelope,
    type: z.literal('turn.enqueue'),
    threadId: Id,
    input: UserInput,
  }),
  'queue.update': z.object({
    ...envelope,
    type: z.literal('queue.update'),
    threadId: Id,
    queueItemId: Id,
    input: UserInput,
  }),
  'queue.remove': z.object({
    ...envelope,
    type: z.literal('queue.remove'),
    threadId: Id,
    queueItemId: Id,
  }),
  'turn.interrupt': z.object({ ...envelope, type: z.literal('turn.interrupt'), threadId: Id }),
  'approval.response': z.object({
    ...envelope,
    type: z.literal('approval.response'),
    approvalId: Id,
    decision: Decision,
    reason: z.string().max(2000).optional(),
  }),
  'interaction.response': z.object({
    ...envelope,
    type: z.literal('interaction.response'),
    interactionId: Id,
    response: z.unknown(),
  }),
  'run.resume': z.object({ ...envelope, type: z.literal('run.resume'), runId: Id }),
  'run.resolveUncertain': z.object({
    ...envelope,
    type: z.literal('run.resolveUncertain'),
    runId: Id,
    resolution: z.enum(['retry', 'mark_done', 'fail']),
  }),
  /**
   * The user takes the page over (issue 28): the thread's current run pauses at its next safe
   * point (never inside a tool call) and rests in `user_control` until `run.handBack`.
   */
  'run.takeOver': z.object({ ...envelope, type: z.literal('run.takeOver'), threadId: Id }),
  /** The user gives the page back; the note reaches the model as a steer. */
  'run.handBack': z.object({
    ...envelope,
    type: z.literal('run.handBack'),
    threadId: Id,
    note: z.string().max(5_000).optional(),
  }),
  'settings.update': z.object({
    ...envelope,
    type: z.literal('settings.update'),
    patch: SettingsPatch,
  }),
  'siteRules.set': z.object({
    ...envelope,
    type: z.literal('siteRules.set'),
    origin: z.string().min(1).max(2000),
    rule: SiteRule,
    /** The site's page tools (WebMCP) count as reads; absent keeps the current choice. */
    pageToolsRead: z.boolean().optional(),
  }),
  'thread.export': z.object({ ...envelope, type: z.literal('thread.export'), threadId: Id }),
  /** The task recording of a thread, or of one of its runs (ack: { frames, threadBytes }). */
  'thread.recording': z.object({
    ...envelope,
    type: z.literal('thread.recording'),
    threadId: Id,
    runId: Id.optional(),
  }),
  /** Threads whose title or messages contain every word of `query` (ack: { matches }). */
  'thread.search': z.object({
    ...envelope,
    type: z.literal('thread.search'),
    query: z.string().min(1).max(200),
    limit: z.number().int().min(1).max(500).optional(),
  }),
  /** Import a SKILL.md file (front matter with name and description, then the body). */
  'skills.import': z.object({
    ...envelope,
    type: z.literal('skills.import'),
    content: z.string().min(1).max(100_000),
  }),
  'skills.remove': z.object({
    ...envelope,
    type: z.literal('skills.remove'),
    name: z.string().min(1).max(64),
  }),
  /**
   * Store a site secret (issue 28): a value the model never sees, typed only into its site's
   * fields. `value` goes to the credentials store; a TOTP secret's value is its base32 seed.
   */
  'secrets.set': z.object({
    ...envelope,
    type: z.literal('secrets.set'),
    origin: z.string().min(1).max(2000),
    name: z.string().min(1).max(40),
    kind: z.enum(['text', 'password', 'totp']),
    value: z.string().min(1).max(10_000),
  }),
  'secrets.remove': z.object({
    ...envelope,
    type: z.literal('secrets.remove'),
    origin: z.string().min(1).max(2000),
    name: z.string().min(1).max(40),
  }),
  /**
   * Sign in to an OAuth MCP server (settings' Connect): acked at once; the worker opens the
   * server's sign-in page and the outcome arrives as the server's status in `settings.updated`.
   */
  'mcp.signIn': z.object({ ...envelope, type: z.literal('mcp.signIn'), serverId: Id }),
  /** Sign out of an OAuth MCP server: revoke where offered, forget the tokens. */
  'mcp.signOut': z.object({ ...envelope, type: z.literal('mcp.signOut'), serverId: Id }),
  /**
   * Keel as an MCP server (docs/mcp-server.md). Sent by the worker's bridge link when a bridge
   * presents a pairing Keel does not know: the pairing is stored `pending` (its secret's hash in
   * the credentials store) and the panel asks the user. A known pairing keeps its status.
   */
  'bridge.pairingRequest': z.object({
    ...envelope,
    type: z.literal('bridge.pairingRequest'),
    pairingId: Id,
    clientName: z.string().min(1).max(100),
    secretHash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  /** The user's answer to a pairing request (the panel's Allow / Deny). */
  'bridge.pairingRespond': z.object({
    ...envelope,
    type: z.literal('bridge.pairingRespond'),
    pairingId: Id,
    decision: z.enum(['allow', 'deny']),
  }),
  /** Revoke a pairing (settings): its secret is deleted and its client refused from now on. */
  'bridge.pairingRevoke': z.object({
    ...envelope,
    type: z.literal('bridge.pairingRevoke'),
    pairingId: Id,
  }),
  /**
   * One tool call of an outside agent, relayed by the bridge link: a run of its own in the
   * session's thread (created when `threadId` is absent or gone) that makes exactly this call,
   * through the Gatekeeper, approvals, the tool card and the durable record like any call of
   * Keel's model. `submissionId` is the bridge's call id, so a call re-sent after a worker restart
   * replays the first ack instead of running twice.
   */
  'tool.callExternal': z.object({
    ...envelope,
    type: z.literal('tool.callExternal'),
    pairingId: Id,
    threadId: Id.optional(),
    name: z.string().min(1).max(200),
    args: z.record(z.string(), z.unknown()),
  }),
  /** Save a finished turn as a workflow (PROTOCOL.md §Workflows). */
  'workflow.save': z.object({
    ...envelope,
    type: z.literal('workflow.save'),
    threadId: Id,
    turnId: Id,
    name: z.string().trim().min(1).max(200),
  }),
  /** Replay a workflow: in a new thread unless `threadId` is given. */
  'workflow.run': z.object({
    ...envelope,
    type: z.literal('workflow.run'),
    workflowId: Id,
    inputs: z.record(z.string().max(100), z.string().max(10_000)).optional(),
    threadId: Id.optional(),
    /** After a divergence: hand the rest to the model (default, when one is configured) or stop. */
    onDivergence: z.enum(['model', 'stop']).optional(),
    /** 'schedule': started by the workflow's alarm; the run lands in the workflow's own thread. */
    trigger: z.enum(['user', 'schedule']).optional(),
  }),
  'workflow.update': z.object({
    ...envelope,
    type: z.literal('workflow.update'),
    workflowId: Id,
    patch: z.object({
      name: z.string().trim().min(1).max(200).optional(),
      inputs: z.array(WorkflowInputMeta).max(100).optional(),
      schedule: WorkflowSchedule.optional(),
    }),
  }),
  'workflow.delete': z.object({ ...envelope, type: z.literal('workflow.delete'), workflowId: Id }),
  /** Forget a workflow's finished runs (its history); a run still going stays listed. */
  'workflow.clearRuns': z.object({
    ...envelope,
    type: z.literal('workflow.clearRuns'),
    workflowId: Id,
  }),
  /**
   * Record a workflow by showing it (issue 27): the user's own clicks, typing and choices in one
   * tab (the active one unless `tabId`) become steps; one recording at a time.
   */
  'workflow.recordStart': z.object({
    ...envelope,
    type: z.literal('workflow.recordStart'),
    tabId: z.number().int().min(0).optional(),
  }),
  /** Stop recording; the steps are kept for review until saved or discarded. */
  'workflow.recordStop': z.object({
    ...envelope,
    type: z.literal('workflow.recordStop'),
    recordingId: Id,
  }),
  /** Save a stopped recording as a workflow, without the steps in `drop`, inputs renamed. */
  'workflow.recordSave': z.object({
    ...envelope,
    type: z.literal('workflow.recordSave'),
    recordingId: Id,
    name: z.string().trim().min(1).max(200),
    drop: z.array(z.number().int().min(0).max(10_000)).max(10_000).optional(),
    renames: z.record(z.string().max(100), z.string().max(100)).optional(),
  }),
  /** Forget a recording (a running one stops first). */
  'workflow.recordDiscard': z.object({
    ...envelope,
    type: z.literal('workflow.recordDiscard'),
    recordingId: Id,
  }),
} as const;

export type OpType = keyof typeof OpSchemas;
export const OP_TYPES = Object.keys(OpSchemas) as OpType[];

export const Op = z.discriminatedUnion('type', [
  OpSchemas.initialize,
  OpSchemas['thread.create'],
  OpSchemas['thread.delete'],
  OpSchemas['thread.fork'],
  OpSchemas['thread.selectBranch'],
  OpSchemas['thread.subscribe'],
  OpSchemas['thread.unsubscribe'],
  OpSchemas['thread.setOptions'],
  OpSchemas['turn.submit'],
  OpSchemas['turn.steer'],
  OpSchemas['turn.enqueue'],
  OpSchemas['queue.update'],
  OpSchemas['queue.remove'],
  OpSchemas['turn.interrupt'],
  OpSchemas['approval.response'],
  OpSchemas['interaction.response'],
  OpSchemas['run.resume'],
  OpSchemas['run.resolveUncertain'],
  OpSchemas['run.takeOver'],
  OpSchemas['run.handBack'],
  OpSchemas['settings.update'],
  OpSchemas['siteRules.set'],
  OpSchemas['thread.export'],
  OpSchemas['thread.recording'],
  OpSchemas['thread.search'],
  OpSchemas['skills.import'],
  OpSchemas['skills.remove'],
  OpSchemas['secrets.set'],
  OpSchemas['secrets.remove'],
  OpSchemas['mcp.signIn'],
  OpSchemas['mcp.signOut'],
  OpSchemas['bridge.pairingRequest'],
  OpSchemas['bridge.pairingRespond'],
  OpSchemas['bridge.pairingRevoke'],
  OpSchemas['tool.callExternal'],
  OpSchemas['workflow.save'],
  OpSchemas['workflow.run'],
  OpSchemas['workflow.update'],
  OpSchemas['workflow.delete'],
  OpSchemas['workflow.clearRuns'],
  OpSchemas['workflow.recordStart'],
  OpSchemas['workflow.recordStop'],
  OpSchemas['workflow.recordSave'],
  OpSchemas['workflow.recordDiscard'],
]);
export type Op = z.infer<typeof Op>;
export type OpOf<T extends OpType> = Extract<Op, { type: T }>;

/** Distributive Omit over the union, so each op keeps its own payload fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An op as a UI writes it before the client stamps clientId / submissionId. */
export type OpInput = DistributiveOmit<Op, 'clientId' | 'submissionId'>;

export const RejectCode = z.enum([
  'invalid_command',
  'not_found',
  'busy',
  'no_provider',
  'no_active_turn',
  'turn_mismatch',
  'not_steerable',
  'queue_full',
  'already_resolved',
  'not_resumable',
  'not_uncertain',
  /** workflow.save: the turn did not complete, or acted with no tool. */
  'not_replayable',
  /** run.takeOver: the run is not working (paused, queued, or already waiting for the user). */
  'not_running',
  /** run.handBack: the user does not hold the page. */
  'not_held',
  /** tool.callExternal: the bridge's pairing is not allowed (pending, denied or revoked). */
  'not_paired',
  'internal',
]);
export type RejectCode = z.infer<typeof RejectCode>;
