import { z } from 'zod';
import {
  Decision,
  RunState,
  StopReason,
  Todo,
  ToolEffects,
  ToolLevel,
  UserInput,
  Usage,
} from './common';
import { Item } from './items';
import { RejectCode } from './ops';
import { PublicSettings } from './settings';
import { RecordingStatus, WorkflowMeta, WorkflowReport } from './workflows';

/** Events (engine → UI), PROTOCOL.md. Thread-scoped events carry `threadId`. */

export const ThreadMeta = z.object({
  threadId: z.string(),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  leafId: z.string().nullable(),
  parentThreadId: z.string().optional(),
  runState: RunState.optional(),
  planFirst: z.boolean().optional(),
  enabledSkills: z.array(z.string()).optional(),
  usage: Usage.optional(),
  costUsd: z.number().optional(),
});
export type ThreadMeta = z.infer<typeof ThreadMeta>;

export const ApprovalRequest = z.object({
  type: z.literal('approval.request'),
  threadId: z.string(),
  runId: z.string(),
  approvalId: z.string(),
  toolCallId: z.string(),
  tool: z.object({
    name: z.string(),
    label: z.string(),
    level: ToolLevel,
    effects: ToolEffects,
    /** A page tool (WebMCP) whose page says it only reads: the page's claim, shown, never trusted. */
    pageClaimsReadOnly: z.boolean().optional(),
  }),
  params: z.unknown(),
  target: z.object({
    tabId: z.number().optional(),
    url: z.string().optional(),
    origin: z.string().optional(),
    title: z.string().optional(),
    serverId: z.string().optional(),
    favIconUrl: z.string().optional(),
    /** The element acted on (role and accessible name, page-controlled text), for the card's sentence. */
    element: z.object({ role: z.string(), name: z.string() }).optional(),
    /** An action in an embedded frame of another origin: the top page (url/origin are the frame's). */
    topUrl: z.string().optional(),
    topOrigin: z.string().optional(),
  }),
  options: z.array(Decision),
  /** Why the engine asks (e.g. 'write', 'always_ask:payment', 'rule_changed'). */
  reason: z.string().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

export const InteractionRequest = z.object({
  type: z.literal('interaction.request'),
  threadId: z.string(),
  runId: z.string(),
  interactionId: z.string(),
  kind: z.enum(['ask_user', 'elicitation', 'takeover', 'plan']),
  payload: z.unknown(),
});
export type InteractionRequest = z.infer<typeof InteractionRequest>;

export const QueueItem = z.object({ queueItemId: z.string(), input: UserInput });
export type QueueItem = z.infer<typeof QueueItem>;

export const RunSummary = z.object({
  runId: z.string(),
  turnId: z.string(),
  state: RunState,
  stopReason: StopReason.optional(),
  pendingApproval: ApprovalRequest.optional(),
  pendingInteraction: InteractionRequest.optional(),
  /** For paused_uncertain: the tool call whose outcome is unknown. */
  uncertainToolCallId: z.string().optional(),
  /** The user pressed Take over; the run pauses at its next safe point (then `user_control`). */
  takeOverRequested: z.boolean().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const BranchPoint = z.object({
  /** The node whose children diverge. */
  parentId: z.string().nullable(),
  /** Sibling node ids in creation order, and which one the current path takes. */
  childIds: z.array(z.string()),
  selected: z.string(),
  /** A leaf reachable from each sibling (the most recently updated one). */
  leafIds: z.array(z.string()),
});
export type BranchPoint = z.infer<typeof BranchPoint>;

export const ThreadSnapshot = z.object({
  thread: ThreadMeta,
  path: z.array(Item),
  run: RunSummary.optional(),
  queue: z.array(QueueItem),
  todos: z.array(Todo),
  branches: z.array(BranchPoint).optional(),
});
export type ThreadSnapshot = z.infer<typeof ThreadSnapshot>;

export const EventSchemas = {
  initialized: z.object({
    type: z.literal('initialized'),
    threads: z.array(ThreadMeta),
    snapshots: z.array(ThreadSnapshot),
    settings: PublicSettings,
    /** Always sent by the engine (optional in the schema so older fixtures still parse). */
    workflows: z.array(WorkflowMeta).optional(),
    /** The recording in progress or awaiting review, when there is one. */
    recording: RecordingStatus.optional(),
  }),
  'thread.snapshot': z.object({ type: z.literal('thread.snapshot'), snapshot: ThreadSnapshot }),
  'thread.updated': z.object({ type: z.literal('thread.updated'), thread: ThreadMeta }),
  'thread.deleted': z.object({ type: z.literal('thread.deleted'), threadId: z.string() }),
  'turn.start': z.object({
    type: z.literal('turn.start'),
    threadId: z.string(),
    turnId: z.string(),
    runId: z.string(),
  }),
  'item.start': z.object({
    type: z.literal('item.start'),
    threadId: z.string(),
    turnId: z.string(),
    item: Item,
  }),
  'item.delta': z.object({
    type: z.literal('item.delta'),
    threadId: z.string(),
    itemId: z.string(),
    delta: z.object({
      text: z.string().optional(),
      thinking: z.string().optional(),
      toolArgs: z.string().optional(),
      toolProgress: z.string().optional(),
    }),
  }),
  /** A streamed item that will never be persisted (the attempt failed or was interrupted). */
  'item.discarded': z.object({
    type: z.literal('item.discarded'),
    threadId: z.string(),
    itemId: z.string(),
  }),
  'item.updated': z.object({ type: z.literal('item.updated'), threadId: z.string(), item: Item }),
  'item.complete': z.object({ type: z.literal('item.complete'), threadId: z.string(), item: Item }),
  'token.usage': z.object({
    type: z.literal('token.usage'),
    threadId: z.string(),
    runId: z.string(),
    usage: Usage,
    turnUsage: Usage,
    costUsd: z.number().optional(),
    turnCostUsd: z.number().optional(),
    threadUsage: Usage.optional(),
    threadCostUsd: z.number().optional(),
  }),
  'approval.request': ApprovalRequest,
  'approval.resolved': z.object({
    type: z.literal('approval.resolved'),
    threadId: z.string(),
    approvalId: z.string(),
    decision: Decision,
  }),
  'interaction.request': InteractionRequest,
  'interaction.resolved': z.object({
    type: z.literal('interaction.resolved'),
    threadId: z.string(),
    interactionId: z.string(),
  }),
  'queue.updated': z.object({
    type: z.literal('queue.updated'),
    threadId: z.string(),
    items: z.array(QueueItem),
  }),
  'todo.updated': z.object({
    type: z.literal('todo.updated'),
    threadId: z.string(),
    todos: z.array(Todo),
  }),
  'run.updated': z.object({
    type: z.literal('run.updated'),
    threadId: z.string(),
    runId: z.string(),
    state: RunState,
    run: RunSummary.optional(),
  }),
  'turn.complete': z.object({
    type: z.literal('turn.complete'),
    threadId: z.string(),
    turnId: z.string(),
    runId: z.string(),
    stopReason: StopReason,
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    /** Set for a workflow run (PROTOCOL.md §Workflows). */
    workflow: WorkflowReport.optional(),
  }),
  'workflows.updated': z.object({
    type: z.literal('workflows.updated'),
    workflows: z.array(WorkflowMeta),
  }),
  /** A recording started, gained a step, stopped, was saved or discarded (null: none now). */
  'workflow.recording': z.object({
    type: z.literal('workflow.recording'),
    recording: RecordingStatus.nullable(),
  }),
  'settings.updated': z.object({ type: z.literal('settings.updated'), settings: PublicSettings }),
  'command.ack': z.object({
    type: z.literal('command.ack'),
    submissionId: z.string(),
    result: z.unknown().optional(),
  }),
  'command.reject': z.object({
    type: z.literal('command.reject'),
    submissionId: z.string(),
    code: RejectCode,
    message: z.string(),
  }),
} as const;

export const AgentEvent = z.discriminatedUnion('type', [
  EventSchemas.initialized,
  EventSchemas['workflows.updated'],
  EventSchemas['workflow.recording'],
  EventSchemas['thread.snapshot'],
  EventSchemas['thread.updated'],
  EventSchemas['thread.deleted'],
  EventSchemas['turn.start'],
  EventSchemas['item.start'],
  EventSchemas['item.delta'],
  EventSchemas['item.discarded'],
  EventSchemas['item.updated'],
  EventSchemas['item.complete'],
  EventSchemas['token.usage'],
  EventSchemas['approval.request'],
  EventSchemas['approval.resolved'],
  EventSchemas['interaction.request'],
  EventSchemas['interaction.resolved'],
  EventSchemas['queue.updated'],
  EventSchemas['todo.updated'],
  EventSchemas['run.updated'],
  EventSchemas['turn.complete'],
  EventSchemas['settings.updated'],
  EventSchemas['command.ack'],
  EventSchemas['command.reject'],
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
export type EventType = AgentEvent['type'];
export type EventOf<T extends EventType> = Extract<AgentEvent, { type: T }>;

/** Events that concern one thread: routed only to clients subscribed to it. */
export function eventThreadId(ev: AgentEvent): string | undefined {
  return 'threadId' in ev
    ? ev.threadId
    : ev.type === 'thread.updated'
      ? ev.thread.threadId
      : undefined;
}
