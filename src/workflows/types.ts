/** A workflow: the acting steps of a finished turn, replayable without the model. */
import type { SemanticLocator } from './locator';

export const WORKFLOW_VERSION = 1 as const;

/** A value the user gave in the task, editable before each run. */
export interface WorkflowInput {
  /** `[a-z][a-z0-9_]*`, referenced from step params as `{{name}}`. */
  name: string;
  /** The value the recorded task used. */
  default?: string;
  /**
   * A secret field of a recorded demonstration (a password): never given a default, never
   * recorded; each run must be given it.
   */
  secret?: true;
}

export interface WorkflowStep {
  tool: string;
  /**
   * The call's parameters without `ref` and `tabId` (both change between visits); string values
   * may hold `{{input}}` placeholders.
   */
  params: Record<string, unknown>;
  /** The element acted on, for tools that take a ref. */
  locator?: SemanticLocator;
  /** What the step did, for the step list and the model's plan. */
  summary: string;
}

/** What the last page must show for the run to count as done. */
export interface WorkflowCheck {
  urlPattern?: string;
  /** Texts the final snapshot must contain (case-insensitive; may hold `{{input}}`). */
  texts: string[];
}

export interface WorkflowDefinition {
  v: typeof WORKFLOW_VERSION;
  /** The recorded task with its values as `{{input}}`: the model's goal after a divergence. */
  task: string;
  steps: WorkflowStep[];
  /**
   * The page the first step acted on, when the first step is not itself a navigation: a run whose
   * tab shows another page opens this one in a new tab first (a scheduled run starts anywhere).
   */
  startUrl?: string;
  inputs: WorkflowInput[];
  check: WorkflowCheck;
}
