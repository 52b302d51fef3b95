/**
 * Derives a workflow from a finished turn's items (its path, in order): the acting steps with a
 * semantic locator of their element, the task's values as inputs, and a final check of what the
 * last page showed. Reads that only served the model's thinking (snapshots, finds, screenshots,
 * tab lists) are dropped; so are calls that failed, were denied or never ran.
 *
 * Everything about the page comes from the snapshots' structured outlines (`details.outline`),
 * never from the text the model was sent: that text has a header, an untrusted wrapper with a
 * random marker and the page URL, none of which is what the page shows.
 */
import type { Item } from '../protocol';
import { InputCollector } from './inputs';
import { describeLocator, locatorOf, type SemanticLocator } from './locator';
import { outlineOf, snapshotOutlineOf, type Outline } from './outline';
import { urlPattern } from './url-pattern';
import {
  WORKFLOW_VERSION,
  type WorkflowCheck,
  type WorkflowDefinition,
  type WorkflowStep,
} from './types';

type ToolCall = Extract<Item, { kind: 'tool_call' }>;
type ToolResult = Extract<Item, { kind: 'tool_result' }>;

export type Derived =
  | { kind: 'ok'; workflow: WorkflowDefinition }
  | { kind: 'not_replayable'; message: string };

/** The tool whose results carry the structured outline locators are built from. */
const SNAPSHOT_TOOL = 'browser_snapshot';
/** Reads kept as steps: they change what the page shows (a hover opens a menu). */
const ACTING_READS = new Set(['browser_hover']);
/** Parameters a replay must not reuse: they name this visit's tab and elements. */
const VISIT_PARAMS = new Set(['ref', 'tabId']);

function detailsOf(r: ToolResult | undefined): { urlBefore?: string; urlAfter?: string } {
  const d = r?.details;
  return d && typeof d === 'object' ? (d as { urlBefore?: string; urlAfter?: string }) : {};
}

function isActing(c: ToolCall): boolean {
  if (c.level === 'builtin') return false;
  return c.effects === 'write' || ACTING_READS.has(c.name);
}

export function deriveWorkflow(items: readonly Item[]): Derived {
  const task =
    items.find((i): i is Extract<Item, { kind: 'user_message' }> => i.kind === 'user_message')
      ?.text ?? '';
  const results = new Map<string, ToolResult>();
  for (const i of items) if (i.kind === 'tool_result') results.set(i.toolCallId, i);
  const inputs = new InputCollector(task);
  const steps: WorkflowStep[] = [];
  // The latest context of each ref, from the latest snapshot that showed it.
  const seen = new Map<string, SemanticLocator>();
  let lastOutline: Outline | undefined;
  let outlineAfterLastStep = false;
  let lastUrl: string | undefined;
  let startUrl: string | undefined;

  for (const item of items) {
    if (item.kind !== 'tool_call') continue;
    const result = results.get(item.toolCallId);
    if (!result || !result.ok || (result.outcome && result.outcome !== 'ok')) continue;
    const d = detailsOf(result);
    if (item.name === SNAPSHOT_TOOL) {
      // A diff or an unchanged answer has no structure: the refs it names were seen before.
      const structured = snapshotOutlineOf(result.details);
      if (!structured) continue;
      const outline = outlineOf(structured);
      for (const c of outline.controls) seen.set(c.ref, locatorOf(c, structured.url));
      lastOutline = outline;
      outlineAfterLastStep = true;
      lastUrl = structured.url;
      continue;
    }
    if (!isActing(item)) continue;
    const params =
      item.params && typeof item.params === 'object'
        ? (item.params as Record<string, unknown>)
        : {};
    if (item.name === 'browser_mouse' && typeof params.ref !== 'string') {
      return {
        kind: 'not_replayable',
        message: `Step ${steps.length + 1} clicked by screen coordinates, which a replay cannot find again.`,
      };
    }
    let locator: SemanticLocator | undefined;
    if (typeof params.ref === 'string') {
      locator = seen.get(params.ref);
      if (!locator)
        return {
          kind: 'not_replayable',
          message: `Step ${steps.length + 1} (${item.name}) acted on ${params.ref}, which no snapshot of the turn showed.`,
        };
    }
    if (!steps.length && locator && lastUrl && /^https?:/.test(lastUrl)) startUrl = lastUrl;
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) if (!VISIT_PARAMS.has(k)) kept[k] = v;
    const templated = inputs.template(kept, locator?.name ?? '');
    steps.push({
      tool: item.name,
      params: templated,
      ...(locator ? { locator } : {}),
      summary: summarize(item, locator, templated),
    });
    outlineAfterLastStep = false;
    lastUrl = d.urlAfter ?? lastUrl;
  }
  if (!steps.length)
    return {
      kind: 'not_replayable',
      message: 'The turn did not act on any page with a tool; there is nothing to replay.',
    };
  return {
    kind: 'ok',
    workflow: {
      v: WORKFLOW_VERSION,
      task: inputs.templateText(task),
      steps,
      ...(startUrl ? { startUrl } : {}),
      inputs: inputs.inputs,
      check: finalCheck(outlineAfterLastStep ? lastOutline : undefined, lastUrl, inputs),
    },
  };
}

/**
 * What the last page must show: its URL pattern, its first heading and (up to four) of its text
 * lines that mention the task's values (the cart line "USB-C cable × 2", a confirmation). Only
 * page text counts: the URL (which may carry a value, `?qty=2`) is matched by pattern only, and
 * the snapshot tool's header and wrapper are not in the structured outline at all. Only a
 * snapshot taken after the last step says what the result was.
 */
export function finalCheck(
  outline: Pick<Outline, 'url' | 'texts' | 'headingTexts'> | undefined,
  url: string | undefined,
  inputs: InputCollector,
): WorkflowCheck {
  const pattern = (outline?.url ?? url) ? urlPattern((outline?.url ?? url)!) : null;
  const texts: string[] = [];
  if (outline) {
    const heading = outline.headingTexts.find((t) => t.length <= 120);
    if (heading) texts.push(heading);
    for (const t of outline.texts) {
      if (texts.length >= 5) break;
      if (t.length <= 200 && inputs.mentionsInput(t) && !texts.includes(t)) texts.push(t);
    }
  }
  return {
    ...(pattern ? { urlPattern: pattern } : {}),
    texts: texts.map((t) => inputs.templateText(t)),
  };
}

function summarize(
  c: ToolCall,
  l: SemanticLocator | undefined,
  params: Record<string, unknown>,
): string {
  const target = l ? ` ${describeLocator(l)}` : '';
  const value =
    typeof params.text === 'string'
      ? ` with "${params.text}"`
      : typeof params.url === 'string'
        ? ` ${params.url}`
        : typeof params.key === 'string'
          ? ` ${params.key}`
          : '';
  return `${c.label || c.name}${target}${value}`;
}
