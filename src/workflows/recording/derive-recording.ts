/**
 * A recording's entries → the workflow they make (issue 27 "Record a workflow by showing it"):
 * the same `WorkflowDefinition` a model-derived workflow has, so replay, the Gatekeeper,
 * approvals, divergence and schedules treat both alike.
 *
 * Pure: the recorder (recorder.ts) keeps the entries; the review (drop a step, rename an input)
 * is applied here, so what the user saw in the review is exactly what is saved.
 */
import { finalCheck } from '../derive';
import { InputCollector } from '../inputs';
import { describeLocator, type SemanticLocator } from '../locator';
import type { Outline } from '../outline';
import { WORKFLOW_VERSION, type WorkflowDefinition, type WorkflowStep } from '../types';
import { urlPattern } from '../url-pattern';
import type { RecordedEntry } from './recorded-step';

/** What the last page showed when the user pressed Stop (no control values: texts only). */
export type FinalPage = Pick<Outline, 'url' | 'texts' | 'headingTexts'>;

export interface RecordingReview {
  /** Indexes (into `collapse`'s steps, as the review listed them) the user deleted. */
  drop?: readonly number[];
  /** Input renames, old name → new name. */
  renames?: Readonly<Record<string, string>>;
}

export type DerivedRecording =
  | { kind: 'ok'; workflow: WorkflowDefinition }
  | { kind: 'empty'; message: string }
  | { kind: 'invalid'; message: string };

/** One step of the review, before inputs are named: what the user did, merged and ordered. */
export type RawStep =
  | { tool: 'browser_navigate'; url: string }
  | { tool: 'browser_click'; locator: SemanticLocator; doubleClick: boolean; url: string }
  | {
      tool: 'browser_type';
      locator: SemanticLocator;
      text?: string;
      secret: boolean;
      submit: boolean;
      url: string;
    }
  | { tool: 'browser_select'; locator: SemanticLocator; values: string[]; url: string }
  | { tool: 'browser_press_key'; locator: SemanticLocator; url: string };

const INPUT_NAME = /^[a-z][a-z0-9_]*$/;

function sameElement(a: SemanticLocator, b: SemanticLocator): boolean {
  return (
    a.role === b.role &&
    a.name === b.name &&
    a.frameId === b.frameId &&
    a.landmarks.join('/') === b.landmarks.join('/') &&
    a.headings.join('/') === b.headings.join('/')
  );
}

/**
 * The entries as steps a person would list: a double-click replaces the two clicks it was made
 * of; typing into the same field again replaces what was typed before (the last value is what
 * the user meant) unless Enter sent the first.
 */
export function collapse(entries: readonly RecordedEntry[]): RawStep[] {
  const out: RawStep[] = [];
  for (const e of entries) {
    if (e.kind === 'navigate') {
      out.push({ tool: 'browser_navigate', url: e.url });
      continue;
    }
    const s = e.step;
    const locator = { ...s.locator, frameId: e.frameId };
    const last = out[out.length - 1];
    switch (s.action) {
      case 'click':
        if (s.doubleClick) {
          for (let k = 0; k < 2; k++) {
            const prev = out[out.length - 1];
            if (
              prev?.tool === 'browser_click' &&
              !prev.doubleClick &&
              sameElement(prev.locator, locator)
            )
              out.pop();
          }
        }
        out.push({ tool: 'browser_click', locator, doubleClick: s.doubleClick, url: s.url });
        break;
      case 'type':
        if (last?.tool === 'browser_type' && !last.submit && sameElement(last.locator, locator))
          out.pop();
        out.push({
          tool: 'browser_type',
          locator,
          ...(s.secret ? {} : { text: s.text ?? '' }),
          secret: s.secret === true,
          submit: s.submit,
          url: s.url,
        });
        break;
      case 'select':
        out.push({ tool: 'browser_select', locator, values: s.values, url: s.url });
        break;
      case 'press_key':
        out.push({ tool: 'browser_press_key', locator, url: s.url });
        break;
    }
  }
  return out;
}

const VERB: Record<RawStep['tool'], string> = {
  browser_navigate: 'Open',
  browser_click: 'Click',
  browser_type: 'Type into',
  browser_select: 'Select in',
  browser_press_key: 'Press Enter in',
};

function summaryOf(step: RawStep, params: Record<string, unknown>): string {
  if (step.tool === 'browser_navigate') return `${VERB[step.tool]} ${step.url}`;
  const target = describeLocator(step.locator);
  const value =
    typeof params.text === 'string'
      ? ` "${params.text}"${step.tool === 'browser_type' && step.submit ? ' and press Enter' : ''}`
      : Array.isArray(params.values)
        ? ` "${params.values.join(', ')}"`
        : '';
  const verb = step.tool === 'browser_click' && step.doubleClick ? 'Double-click' : VERB[step.tool];
  return `${verb} ${target}${value}`;
}

function withPattern(l: SemanticLocator, url: string): SemanticLocator {
  const pattern = urlPattern(url);
  return pattern ? { ...l, urlPattern: pattern } : l;
}

/** Renames `{{old}}` placeholders in every string of `v` (deeply). */
function renameIn<T>(v: T, renames: ReadonlyMap<string, string>): T {
  if (typeof v === 'string')
    return v.replace(/\{\{([a-z][a-z0-9_]*)\}\}/g, (m, n: string) =>
      renames.has(n) ? `{{${renames.get(n)}}}` : m,
    ) as T;
  if (Array.isArray(v)) return v.map((x) => renameIn(x, renames)) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renameIn(x, renames)])) as T;
  return v;
}

/**
 * The workflow a recording makes, after the review. `startUrl` is the page the recording began
 * on (a run whose tab shows another page opens it first); `final` is what the last page showed.
 */
export function deriveRecording(
  entries: readonly RecordedEntry[],
  opts: {
    startUrl?: string;
    final?: FinalPage;
    review?: RecordingReview;
    /**
     * The placeholder of a stored password secret for a page's site (src/secrets), if any: a
     * secret field there types it instead of asking for an input at each run.
     */
    storedSecret?: (url: string) => string | undefined;
  } = {},
): DerivedRecording {
  const dropped = new Set(opts.review?.drop ?? []);
  const raw = collapse(entries).filter((_s, i) => !dropped.has(i));
  if (!raw.length)
    return {
      kind: 'empty',
      message: 'Nothing was recorded: click, type or choose something on the page, then stop.',
    };
  const inputs = new InputCollector('');
  const steps: WorkflowStep[] = raw.map((s) => {
    let params: Record<string, unknown>;
    switch (s.tool) {
      case 'browser_navigate':
        params = { url: s.url };
        break;
      case 'browser_click':
        params = s.doubleClick ? { doubleClick: true } : {};
        break;
      case 'browser_type':
        params = {
          text: s.secret
            ? (opts.storedSecret?.(s.url) ?? inputs.secret(s.locator.name))
            : inputs.typed(s.text ?? '', s.locator.name),
          clear: true,
          submit: s.submit,
        };
        break;
      case 'browser_select':
        params = { values: s.values };
        break;
      case 'browser_press_key':
        params = { key: 'Enter' };
        break;
    }
    return {
      tool: s.tool,
      params,
      ...(s.tool !== 'browser_navigate' ? { locator: withPattern(s.locator, s.url) } : {}),
      summary: summaryOf(s, params),
    };
  });
  const first = raw[0];
  const startUrl =
    first.tool !== 'browser_navigate' && opts.startUrl && /^https?:/.test(opts.startUrl)
      ? opts.startUrl
      : undefined;
  let workflow: WorkflowDefinition = {
    v: WORKFLOW_VERSION,
    task: '',
    steps,
    ...(startUrl ? { startUrl } : {}),
    inputs: inputs.inputs,
    check: finalCheck(opts.final, opts.final?.url ?? lastUrl(raw), inputs),
  };
  const renamed = applyRenames(workflow, opts.review?.renames ?? {});
  if (renamed.kind !== 'ok') return renamed;
  workflow = renamed.workflow;
  workflow.task = taskOf(workflow.steps);
  return { kind: 'ok', workflow };
}

function lastUrl(raw: readonly RawStep[]): string | undefined {
  const last = raw[raw.length - 1];
  return last.url;
}

/**
 * What the model is told the workflow does, when a replay diverges and it takes over: the
 * demonstrated steps, in order, with the inputs as placeholders (filled at run time).
 */
function taskOf(steps: readonly WorkflowStep[]): string {
  return [
    'Do what the user demonstrated, step by step:',
    ...steps.map((s, i) => `${i + 1}. ${s.summary}`),
  ].join('\n');
}

function applyRenames(
  w: WorkflowDefinition,
  renames: Readonly<Record<string, string>>,
): DerivedRecording {
  const map = new Map<string, string>();
  const names = new Set(w.inputs.map((i) => i.name));
  for (const [from, to] of Object.entries(renames)) {
    if (from === to) continue;
    if (!names.has(from))
      return { kind: 'invalid', message: `There is no input called "${from}".` };
    if (!INPUT_NAME.test(to))
      return {
        kind: 'invalid',
        message: `"${to}" cannot name an input: use lower-case letters, digits and _, starting with a letter.`,
      };
    map.set(from, to);
  }
  const after = w.inputs.map((i) => map.get(i.name) ?? i.name);
  if (new Set(after).size !== after.length)
    return { kind: 'invalid', message: 'Two inputs would have the same name.' };
  if (!map.size) return { kind: 'ok', workflow: w };
  return {
    kind: 'ok',
    workflow: {
      ...w,
      steps: renameIn(w.steps, map),
      inputs: w.inputs.map((i) => ({ ...i, name: map.get(i.name) ?? i.name })),
      check: renameIn(w.check, map),
    },
  };
}
