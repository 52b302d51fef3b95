/**
 * The replay's decisions, pure: given where a workflow run stands and what its last synthetic
 * calls returned, what happens next. The engine (src/engine/workflow-step.ts) commits each
 * decision and acts through the ordinary tool step, so every action meets the same tools,
 * Gatekeeper and approvals as a model's call would.
 *
 * Per step with a locator: observe (a fresh browser_snapshot), then act on the element that
 * snapshot resolves to. A step without one (navigate, keys) acts directly. After the last step,
 * one more snapshot for the final check.
 */
import { checkFinalPage } from './check';
import { fillInputs } from './inputs';
import type { SnapshotOutline } from '../tools/browser/details';
import { outlineOf } from './outline';
import { resolveLocator } from './resolve';
import type { WorkflowDefinition } from './types';

export const SNAPSHOT_TOOL = 'browser_snapshot';
export const OPEN_TOOL = 'browser_tab_open';

/** A workflow run's cursor, persisted on the run (RunRecord.workflow). */
export interface ReplayState {
  workflowId: string;
  definition: WorkflowDefinition;
  values: Record<string, string>;
  /** Index of the step being worked on; `steps.length` is the final check. */
  next: number;
  /** 'observe': take a snapshot next; 'act': resolve against it and act. */
  phase: 'observe' | 'act';
  /** The synthetic call whose result the next decision reads. */
  awaiting?: { callId: string; kind: 'snapshot' | 'action' | 'open' };
  /** The start page was opened in a new tab (at most once per run). */
  opened?: boolean;
  replayed: number;
  /** 'replay' until a divergence or a steer hands the rest to the model. */
  mode: 'replay' | 'model';
  /** On a divergence: hand the rest to the model (when one is configured) or stop. */
  fallback: 'model' | 'stop';
  /** Started by the workflow's schedule (its end is notified: src/background/workflow-scheduler.ts). */
  trigger?: 'schedule';
  /**
   * The tab later calls name explicitly, once a step opened or switched to one (saved steps
   * carry no tab ids: they belong to the recorded visit). Unset: the run's own tab.
   */
  tabId?: number;
  diverged?: { step: number; reason: string };
}

/** What the synthetic call returned (from its tool_result). */
export interface CallResult {
  ok: boolean;
  /** The model-facing text: only quoted in messages, never parsed. */
  text: string;
  url?: string;
  /** A snapshot's structured outline (`details.outline`): what decisions read. */
  outline?: SnapshotOutline;
  /** The call never ran (an interrupt closed it "not executed"): it is redone, not judged. */
  notRun?: boolean;
  /** The tab the call reported acting on (`details.tabId`). */
  tabId?: number;
}

/** Steps after which the replay follows the tab they report. */
const TAB_STEPS = new Set(['browser_tab_open', 'browser_tab_switch']);
/** Tools that take no tab (or choose one themselves). */
const TABLESS = new Set(['browser_tab_open', 'browser_tabs']);

/** After a tab-opening or tab-switching step succeeded, later calls go to its tab. */
export function followTab(state: ReplayState, last: CallResult | undefined): ReplayState {
  if (state.awaiting?.kind === 'open' && last?.ok && last.tabId !== undefined)
    return { ...state, tabId: last.tabId };
  if (state.awaiting?.kind !== 'action' || !last?.ok || last.tabId === undefined) return state;
  const step = state.definition.steps[state.next - 1];
  return step && TAB_STEPS.has(step.tool) ? { ...state, tabId: last.tabId } : state;
}

/** A synthetic call's arguments: the replay's tab made explicit for browser tools that take one. */
export function withReplayTab(
  state: ReplayState,
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  if (state.tabId === undefined || !tool.startsWith('browser_') || TABLESS.has(tool)) return args;
  return { ...args, tabId: state.tabId };
}

/** After an interrupt closed the awaited call unrun: go back to observing that step. */
export function rewind(state: ReplayState): ReplayState {
  const { awaiting, ...rest } = state;
  return {
    ...rest,
    phase: 'observe',
    next: awaiting?.kind === 'action' ? state.next - 1 : state.next,
  };
}

/** What turn.complete reports (PROTOCOL.md §Workflows). */
export function replayReport(state: ReplayState, modelRequests: number) {
  return {
    workflowId: state.workflowId,
    steps: state.definition.steps.length,
    replayed: state.replayed,
    modelRequests,
    ...(state.diverged ? { diverged: state.diverged } : {}),
  };
}

export type ReplayDecision =
  | { kind: 'observe' }
  /** The run's tab shows another page than the first step's: open the start page in a new tab. */
  | { kind: 'open'; url: string }
  | { kind: 'act'; tool: string; params: Record<string, unknown>; step: number }
  | { kind: 'done' }
  | {
      kind: 'diverged';
      step: number;
      reason:
        | 'none'
        | 'ambiguous'
        | 'page_differs'
        | 'step_failed'
        | 'check_failed'
        | 'missing_input';
      message: string;
    };

/**
 * The next move. `last` is the result of `state.awaiting` (undefined when nothing was awaited);
 * the caller applies `advance` to the state in the same commit as the decision's effect.
 */
export function decideReplay(state: ReplayState, last: CallResult | undefined): ReplayDecision {
  const steps = state.definition.steps;
  const stepNo = state.next + 1;
  if (state.awaiting?.kind === 'open') {
    if (!last || !last.ok)
      return {
        kind: 'diverged',
        step: stepNo,
        reason: 'page_differs',
        message: `The start page ${state.definition.startUrl ?? ''} could not be opened: ${firstLine(last?.text ?? 'no result')}`,
      };
    return { kind: 'observe' };
  }
  if (state.awaiting?.kind === 'action' && last && !last.ok) {
    return {
      kind: 'diverged',
      step: state.next,
      reason: 'step_failed',
      message: `Step ${state.next} failed: ${firstLine(last.text)}`,
    };
  }
  if (state.next >= steps.length) {
    if (state.phase === 'observe' || state.awaiting?.kind !== 'snapshot' || !last)
      return { kind: 'observe' };
    if (!last.ok || !last.outline)
      return {
        kind: 'diverged',
        step: stepNo,
        reason: 'page_differs',
        message: `The last page could not be read: ${firstLine(last.text)}`,
      };
    const check = checkFinalPage(
      state.definition.check,
      outlineOf(last.outline),
      state.values,
      last.url,
    );
    return check.kind === 'passed'
      ? { kind: 'done' }
      : { kind: 'diverged', step: stepNo, reason: 'check_failed', message: check.message };
  }
  const step = steps[state.next];
  const filled = fillInputs(step.params, state.values);
  if (filled.kind === 'missing')
    return {
      kind: 'diverged',
      step: stepNo,
      reason: 'missing_input',
      message: `Step ${stepNo} needs the input "${filled.name}", which has no value.`,
    };
  const params = filled.value as Record<string, unknown>;
  if (!step.locator) return { kind: 'act', tool: step.tool, params, step: stepNo };
  if (state.phase === 'observe' || state.awaiting?.kind !== 'snapshot' || !last)
    return { kind: 'observe' };
  const atStart =
    state.next === 0 &&
    state.replayed === 0 &&
    !state.opened &&
    state.definition.startUrl !== undefined;
  if (!last.ok || !last.outline) {
    if (atStart) return { kind: 'open', url: state.definition.startUrl! };
    return {
      kind: 'diverged',
      step: stepNo,
      reason: 'page_differs',
      message: `The page could not be read before step ${stepNo}: ${firstLine(last.text)}`,
    };
  }
  const res = resolveLocator(step.locator, outlineOf(last.outline), last.url);
  if (res.kind === 'diverged' && res.reason === 'page_differs' && atStart)
    return { kind: 'open', url: state.definition.startUrl! };
  if (res.kind === 'diverged')
    return {
      kind: 'diverged',
      step: stepNo,
      reason: res.reason,
      message: `Step ${stepNo} (${step.summary}): ${res.message}`,
    };
  return { kind: 'act', tool: step.tool, params: { ...params, ref: res.ref }, step: stepNo };
}

/** The state after a decision was committed with the synthetic call `callId`. */
export function advance(
  state: ReplayState,
  d: ReplayDecision,
  callId?: string,
  lastOk?: boolean,
): ReplayState {
  const counted = state.awaiting?.kind === 'action' && lastOk ? state.replayed + 1 : state.replayed;
  switch (d.kind) {
    case 'observe':
      return {
        ...state,
        replayed: counted,
        phase: 'act',
        awaiting: { callId: callId!, kind: 'snapshot' },
      };
    case 'open':
      return {
        ...state,
        opened: true,
        phase: 'observe',
        awaiting: { callId: callId!, kind: 'open' },
      };
    case 'act':
      return {
        ...state,
        replayed: counted,
        next: state.next + 1,
        phase: 'observe',
        awaiting: { callId: callId!, kind: 'action' },
      };
    case 'done':
      return { ...state, replayed: counted, awaiting: undefined };
    case 'diverged': {
      const { awaiting: _a, ...rest } = state;
      // A failed action is retried by a resume (its cursor had moved past it).
      const next = d.reason === 'step_failed' ? state.next - 1 : state.next;
      return {
        ...rest,
        next,
        replayed: counted,
        phase: 'observe',
        diverged: { step: d.step, reason: d.message },
      };
    }
  }
}

/** The plan the model gets after a divergence: the goal, what was done, what is left. */
export function handoffPrompt(state: ReplayState, message: string): string {
  const steps = state.definition.steps;
  const fill = (s: string) => {
    const f = fillInputs(s, state.values);
    return f.kind === 'ok' ? String(f.value) : s;
  };
  const done = steps.slice(0, state.replayed).map((s, i) => `${i + 1}. ${fill(s.summary)} (done)`);
  const left = steps
    .slice(state.replayed)
    .map((s, i) => `${state.replayed + i + 1}. ${fill(s.summary)}`);
  const values = Object.entries(state.values)
    .map(([k, v]) => `${k} = "${v}"`)
    .join(', ');
  return [
    `The saved workflow could not continue on its own: ${message}`,
    `Finish the task with your tools, following the workflow as a plan and checking the page first (it may have changed).`,
    `Task: ${fill(state.definition.task)}${values ? ` (inputs: ${values})` : ''}`,
    `Steps:`,
    ...done,
    ...left,
  ].join('\n');
}

function firstLine(s: string): string {
  const l = s.split('\n').find((x) => x.trim()) ?? '';
  return l.length > 300 ? `${l.slice(0, 297)}…` : l;
}
