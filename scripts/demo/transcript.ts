/**
 * Prints the engine's events as a readable transcript while the turn runs, and keeps the same
 * lines for demo-output/transcript.txt.
 */
import type { AgentEvent } from '../../src/protocol';

type ItemOf<K extends string> = Extract<
  Extract<AgentEvent, { type: 'item.complete' }>['item'],
  { kind: K }
>;

export class Transcript {
  readonly lines: string[] = [];
  private readonly started = Date.now();
  private readonly seenCalls = new Set<string>();
  private readonly seenItems = new Set<string>();
  private readonly shownStates = new Map<string, string>();

  constructor(private readonly out: (line: string) => void = (l) => console.log(l)) {}

  /** A line of the demo itself (setup, checks), not from the engine. */
  note(text: string): void {
    this.print('demo', text);
  }

  event(ev: AgentEvent | { type: string }): void {
    const e = ev as AgentEvent;
    switch (e.type) {
      case 'turn.start':
        return this.print('engine', `turn started (run ${e.runId})`);
      case 'item.complete':
      case 'item.updated':
        return this.item(e.item as ItemOf<string> & { kind: string });
      case 'approval.request':
        return this.print(
          'approval',
          `${e.tool.name} wants to act on ${e.target.origin ?? e.target.url ?? 'a page'}: ${compact(e.params)} (options: ${e.options.join(', ')})`,
        );
      case 'approval.resolved':
        return this.print('approval', `resolved: ${e.decision}`);
      case 'token.usage': {
        const cost =
          e.costUsd === undefined
            ? 'cost n/a (no price for this model)'
            : `cost $${e.costUsd.toFixed(4)}`;
        return this.print(
          'usage',
          `this call ${fmt(e.usage.inputTokens)} in / ${fmt(e.usage.outputTokens)} out tokens; turn ${fmt(e.turnUsage.inputTokens)} in / ${fmt(e.turnUsage.outputTokens)} out; ${cost}`,
        );
      }
      case 'run.updated':
        // streaming_model / executing_tool alternate every step: the items already show that.
        if (
          e.state === 'streaming_model' ||
          e.state === 'executing_tool' ||
          e.state === 'completed'
        )
          return;
        return this.print('engine', `run ${e.state.replace(/_/g, ' ')}`);
      case 'turn.complete':
        return this.print(
          'engine',
          `turn complete: ${e.stopReason}${e.error ? ` (${e.error.code}: ${e.error.message})` : ''}`,
        );
      case 'interaction.request':
        return this.print('question', compact(e.payload));
      default:
        return;
    }
  }

  private item(item: { id: string; kind: string } & Record<string, unknown>): void {
    switch (item.kind) {
      case 'user_message': {
        if (this.once(item.id)) this.print('you', String(item.text));
        return;
      }
      case 'assistant_message': {
        const m = item as unknown as ItemOf<'assistant_message'>;
        if (m.streaming || !this.once(m.id)) return;
        if (m.text.trim()) this.print('assistant', m.text.trim());
        return;
      }
      case 'tool_call': {
        const c = item as unknown as ItemOf<'tool_call'>;
        if (c.visibility === 'internal') return;
        if (!this.seenCalls.has(c.toolCallId)) {
          this.seenCalls.add(c.toolCallId);
          this.print('tool call', `${c.name} ${compact(c.params)}`);
        }
        if (
          c.state !== 'start' &&
          c.state !== 'result' &&
          c.state !== 'executing' &&
          this.shownStates.get(c.toolCallId) !== c.state
        ) {
          this.shownStates.set(c.toolCallId, c.state);
          this.print('tool call', `${c.name}: ${c.state.replace(/_/g, ' ')}`);
        }
        return;
      }
      case 'tool_result': {
        const r = item as unknown as ItemOf<'tool_result'>;
        if (r.visibility === 'internal' || !this.once(r.id)) return;
        const text = r.content
          .map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`))
          .join('\n');
        const first = text.split('\n').find((l) => l.trim()) ?? '';
        const size = text.length > first.length ? ` (${fmt(text.length)} chars)` : '';
        this.print(r.ok ? 'result' : 'result ✗', `${r.name ?? ''} ${first.trim()}${size}`.trim());
        return;
      }
      case 'notice': {
        if (this.once(item.id)) this.print('notice', `${String(item.code)}: ${String(item.text)}`);
        return;
      }
    }
  }

  private once(id: string): boolean {
    if (this.seenItems.has(id)) return false;
    this.seenItems.add(id);
    return true;
  }

  private print(who: string, text: string): void {
    const t = ((Date.now() - this.started) / 1000).toFixed(1).padStart(5);
    const [first, ...rest] = text.split('\n');
    const head = `[${t}s] ${who.padEnd(10)} `;
    const line = [head + first, ...rest.map((r) => ' '.repeat(head.length) + r)].join('\n');
    this.lines.push(line);
    this.out(line);
  }
}

function compact(v: unknown): string {
  const s = JSON.stringify(v) ?? '';
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
