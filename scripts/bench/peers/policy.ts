/**
 * The "careful model" both agents are driven by: written once, framework-blind, agent-blind.
 * A task is a list of intents ("double-click the text Buy milk", "tick the checkbox in the row
 * Walk the dog"); the model turns each into tool calls by reading what it was sent, the way a
 * careful model does:
 *   - it reads the page (a snapshot) when it starts, and once at the end to confirm;
 *   - for a target it first looks in what it has already read (newest first: results of earlier
 *     actions, finds, snapshots); failing that it searches (`browser_find`, which both agents
 *     document as the cheap way to locate one element), then reads the page; a control of a row
 *     still missing is looked for again after hovering the row (hover-revealed buttons);
 *   - an action that fails (a stale ref) is retried once from a fresh snapshot.
 * The only thing that differs per agent is the Dialect: tool names and argument shapes, and how
 * the agent spells a failed call.
 */
import { describe, locate, type Locator, queryOf } from './outline';

export type Intent =
  | { do: 'read' }
  | { do: 'click'; target: Locator | Locator[]; double?: boolean }
  | { do: 'type'; target: Locator | Locator[]; text: string; submit?: boolean }
  | { do: 'press'; key: string };

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Dialect {
  agent: string;
  snapshot(): ToolCall;
  find(query: string): ToolCall;
  click(ref: string, double: boolean): ToolCall;
  type(ref: string, text: string, submit: boolean): ToolCall;
  press(key: string): ToolCall;
  hover(ref: string): ToolCall;
  /** The result says the call did not do what it was asked (an error, a stale ref). */
  failed(result: string): boolean;
}

export type Move = { call: ToolCall } | { done: true; gaveUp?: string };

/** Tool calls a task may take before the model gives up (a loop must end). */
const MAX_CALLS = 40;

type Phase = 'look' | 'found' | 'read' | 'hovered' | 'reread' | 'retry';

export class CarefulModel {
  private i = 0;
  private phase: Phase = 'look';
  private acted = false;
  private retried = false;
  private calls = 0;

  constructor(
    private readonly intents: readonly Intent[],
    private readonly dialect: Dialect,
  ) {}

  /** The next move, given every tool result in the conversation so far (oldest first). */
  next(texts: readonly string[]): Move {
    const last = texts[texts.length - 1] ?? '';
    if (this.acted) {
      this.acted = false;
      const intent = this.intents[this.i];
      if (intent.do !== 'read' && this.dialect.failed(last) && !this.retried) {
        this.retried = true;
        this.phase = 'retry';
        return this.emit(this.dialect.snapshot());
      }
      this.advance();
    }
    if (this.i >= this.intents.length) return { done: true };
    if (this.calls >= MAX_CALLS) return { done: true, gaveUp: `over ${MAX_CALLS} calls` };
    const intent = this.intents[this.i];
    if (intent.do === 'read') return this.act(this.dialect.snapshot());
    if (intent.do === 'press') return this.act(this.dialect.press(intent.key));
    const targets = Array.isArray(intent.target) ? intent.target : [intent.target];
    const inOne = (text: string) => {
      for (const t of targets) {
        const ref = locate(text, t);
        if (ref) return ref;
      }
      return undefined;
    };
    let ref: string | undefined;
    switch (this.phase) {
      case 'look':
        for (let k = texts.length - 1; k >= 0 && !ref; k--) ref = inOne(texts[k]);
        if (ref) break;
        this.phase = 'found';
        return this.emit(this.dialect.find(queryOf(targets[0])));
      case 'found':
        ref = inOne(last);
        if (ref) break;
        this.phase = 'read';
        return this.emit(this.dialect.snapshot());
      // After a failed action the policy read the page again ('retry'): a row's control missing
      // there is looked for after hovering the row, as on the first reading (a list that
      // re-rendered took the earlier hover with it).
      case 'read':
      case 'retry': {
        ref = inOne(last);
        if (ref) break;
        const row = targets.find((t) => t.row)?.row;
        const rowRef = row ? locate(last, { text: row }) : undefined;
        if (!rowRef) return { done: true, gaveUp: `no ${targets.map(describe).join(' / ')}` };
        this.phase = 'hovered';
        return this.emit(this.dialect.hover(rowRef));
      }
      case 'hovered':
        ref = inOne(last);
        if (ref) break;
        this.phase = 'reread';
        return this.emit(this.dialect.snapshot());
      case 'reread':
        ref = inOne(last);
        if (ref) break;
        return { done: true, gaveUp: `no ${targets.map(describe).join(' / ')} after reading` };
    }
    return intent.do === 'click'
      ? this.act(this.dialect.click(ref!, Boolean(intent.double)))
      : this.act(this.dialect.type(ref!, intent.text, Boolean(intent.submit)));
  }

  private advance(): void {
    this.i++;
    this.phase = 'look';
    this.retried = false;
  }

  private act(call: ToolCall): Move {
    this.acted = true;
    return this.emit(call);
  }

  private emit(call: ToolCall): Move {
    this.calls++;
    return { call };
  }
}

/** Keel's tools (docs/tools.md). */
export const KEEL_DIALECT: Dialect = {
  agent: 'keel',
  snapshot: () => ({ name: 'browser_snapshot', args: {} }),
  find: (query) => ({ name: 'browser_find', args: { query } }),
  click: (ref, double) => ({
    name: 'browser_click',
    args: double ? { ref, doubleClick: true } : { ref },
  }),
  type: (ref, text, submit) => ({
    name: 'browser_type',
    args: submit ? { ref, text, submit: true } : { ref, text },
  }),
  press: (key) => ({ name: 'browser_press_key', args: { key } }),
  hover: (ref) => ({ name: 'browser_hover', args: { ref } }),
  failed: (r) => /no longer exists|^Error|is not |could not|refused|failed/im.test(r.slice(0, 400)),
};

/**
 * Playwright MCP's tools (its README): `target` is the ref; the optional human-readable `element`
 * description is left out (fewer output tokens; it only feeds a permission prompt).
 */
export const PLAYWRIGHT_DIALECT: Dialect = {
  agent: 'playwright-mcp',
  snapshot: () => ({ name: 'browser_snapshot', args: {} }),
  find: (text) => ({ name: 'browser_find', args: { text } }),
  click: (ref, double) => ({
    name: 'browser_click',
    args: double ? { target: ref, doubleClick: true } : { target: ref },
  }),
  type: (ref, text, submit) => ({
    name: 'browser_type',
    args: submit ? { target: ref, text, submit: true } : { target: ref, text },
  }),
  press: (key) => ({ name: 'browser_press_key', args: { key } }),
  hover: (ref) => ({ name: 'browser_hover', args: { target: ref } }),
  failed: (r) => /^### Error/m.test(r),
};
