import type { ContentBlock, Item } from '../../protocol';
import type { ProviderMessage, ProviderToolCall } from '../../providers/types';
import type { NodeRecord } from '../../store/records';
import { deepFreeze } from '../../store/deep-freeze';
import { clipArgs, clipText, type ClipPolicy } from './context-clipping';
import { wrapUntrusted } from './untrusted';

/** Text a planning round's assistant message is followed by (spec/000 §1: the [continue] transition). */
export const PLAN_CONTINUE = '[continue]';

const NOT_EXECUTED = 'This tool call was not executed (the turn ended before it ran).';

type ToolOut = ProviderMessage & { role: 'tool' };
type AssistantOut = ProviderMessage & { role: 'assistant' };

/** What the assembly needs to know besides the nodes (decided over the whole path). */
export interface AssemblyRules {
  vision: boolean;
  providerKind: string;
  policy: ClipPolicy | undefined;
  /** Results sent clipped. */
  clip: ReadonlySet<string>;
  /** Calls whose results are clipped: their long arguments are clipped too. */
  clippedCalls: ReadonlySet<string>;
}

/**
 * The provider conversation, node by node (context-builder.ts has the invariants). It can be
 * continued: `messages()` closes the open tool group on a copy, so the next step's context of
 * the same thread resumes from here with the nodes appended since.
 */
export class Assembly {
  private readonly out: ProviderMessage[];
  /** JSON characters of every message in `out` but the last (which may still take content). */
  private doneChars = 0;
  private group: {
    calls: readonly ProviderToolCall[];
    results: Map<string, ToolOut>;
    deferred: ContentBlock[];
  } | null = null;

  constructor(
    readonly rules: AssemblyRules,
    first: ProviderMessage[] = [],
  ) {
    this.out = [];
    for (const m of first) this.push(m);
  }

  add(node: NodeRecord): void {
    const item = node.item;
    const { rules } = this;
    switch (item.kind) {
      case 'user_message': {
        const content = memo(node, `${rules.vision}`, () => userContent(item, rules.vision));
        if (this.group) this.group.deferred.push(...content);
        else this.pushUser(content);
        break;
      }
      case 'assistant_message': {
        this.closeGroup();
        const clipped = (item.toolCalls ?? []).map((c) =>
          rules.policy && rules.clippedCalls.has(c.id) ? 1 : 0,
        );
        const key = `${rules.providerKind}|${rules.policy?.maxArgChars ?? ''}|${clipped.join('')}`;
        const message = memo(node, key, () => assistantMessage(item, rules, clipped));
        // An empty assistant message (e.g. a refusal with no content) is dropped: APIs reject them.
        if (!message) break;
        this.push(message);
        if (message.toolCalls.length)
          this.group = { calls: message.toolCalls, results: new Map(), deferred: [] };
        if (item.round === 'plan') this.pushUser([{ type: 'text', text: PLAN_CONTINUE }]);
        break;
      }
      case 'tool_result': {
        const group = this.group;
        const call = group?.calls.find((c) => c.id === item.toolCallId);
        if (!group || !call) break; // orphan: no call to answer
        if (group.results.has(item.toolCallId)) break;
        const clipTo = rules.clip.has(node.id) && rules.policy ? rules.policy.maxChars : undefined;
        const message = memo(
          node,
          `${rules.vision}|${clipTo ?? ''}|${call.name}`,
          (): ToolOut => ({
            role: 'tool',
            toolCallId: item.toolCallId,
            toolName: call.name,
            content: resultContent(item, rules.vision, clipTo),
            isError: !item.ok,
          }),
        );
        group.results.set(item.toolCallId, message);
        break;
      }
      case 'notice': {
        if (!item.forModel) break;
        const block: ContentBlock = { type: 'text', text: `[Keel] ${item.text}` };
        if (this.group) this.group.deferred.push(block);
        else this.pushUser([block]);
        break;
      }
      case 'tool_call':
        break; // carried by the assistant message's toolCalls
    }
  }

  /**
   * The conversation so far, with the open tool group closed (a call without a result gets a
   * synthetic "not executed" one): a new array; this assembly can go on with more nodes.
   */
  messages(): ProviderMessage[] {
    const out = this.out.slice();
    let chars = this.doneChars + (out.length ? jsonChars(out[out.length - 1]) : 0);
    const group = this.group;
    const close = (m: ProviderMessage) => {
      out.push(m);
      chars += jsonChars(m);
    };
    if (group) {
      for (const call of group.calls) close(group.results.get(call.id) ?? notExecuted(call));
      // After a group the last message is a tool result: deferred content opens a user message.
      if (group.deferred.length) close({ role: 'user', content: [...group.deferred] });
    }
    builtLength.set(out, { count: out.length, chars: 2 + Math.max(0, out.length - 1) + chars });
    return out;
  }

  /**
   * Before continuing after `messages()` handed out the messages so far: the last user message
   * may still take merged content, so it becomes this assembly's own copy.
   */
  detachLast(): void {
    const last = this.out[this.out.length - 1];
    if (last?.role === 'user')
      this.out[this.out.length - 1] = { ...last, content: [...last.content] };
  }

  private pushUser(content: ContentBlock[]): void {
    if (content.length === 0) return;
    const last = this.out[this.out.length - 1];
    if (last && last.role === 'user') last.content.push(...content);
    else this.push({ role: 'user', content: [...content] });
  }

  private push(m: ProviderMessage): void {
    const last = this.out[this.out.length - 1];
    if (last) this.doneChars += jsonChars(last);
    this.out.push(m);
  }

  private closeGroup(): void {
    const group = this.group;
    if (!group) return;
    for (const call of group.calls) this.push(group.results.get(call.id) ?? notExecuted(call));
    this.group = null;
    this.pushUser(group.deferred);
  }
}

/** `JSON.stringify(messages).length` of arrays `messages()` handed out (while their length holds). */
const builtLength = new WeakMap<readonly ProviderMessage[], { count: number; chars: number }>();

/**
 * The length of `JSON.stringify(messages)`: known without serializing for a context this module
 * built (it summed its messages as it went, each frozen one measured once), else measured.
 */
export function messagesJsonLength(messages: readonly ProviderMessage[]): number {
  const known = builtLength.get(messages);
  if (known && known.count === messages.length) return known.chars;
  let chars = 2 + Math.max(0, messages.length - 1);
  for (const m of messages) chars += jsonChars(m);
  return chars;
}

const frozenChars = new WeakMap<ProviderMessage, number>();

function jsonChars(m: ProviderMessage): number {
  if (!Object.isFrozen(m)) return JSON.stringify(m).length;
  let n = frozenChars.get(m);
  if (n === undefined) frozenChars.set(m, (n = JSON.stringify(m).length));
  return n;
}

function notExecuted(call: ProviderToolCall): ToolOut {
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text: NOT_EXECUTED }],
    isError: true,
  };
}

/**
 * Conversions of nodes the store handed out from its committed cache: those are frozen, so the
 * same object always holds the same item, and a later context reuses what this one built. What
 * is reused is frozen too; a node that is not frozen (read from IndexedDB, or built by a caller)
 * is converted afresh every time.
 */
const converted = new WeakMap<NodeRecord, Map<string, unknown>>();

function memo<T>(node: NodeRecord, key: string, make: () => T): T {
  if (!Object.isFrozen(node)) return make();
  let m = converted.get(node);
  if (!m) converted.set(node, (m = new Map()));
  if (m.has(key)) return m.get(key) as T;
  const v = deepFreeze(make());
  m.set(key, v);
  return v;
}

/** The provider message of an assistant node, or null when it has nothing to send. */
function assistantMessage(
  item: Extract<Item, { kind: 'assistant_message' }>,
  rules: AssemblyRules,
  clipped: number[],
): AssistantOut | null {
  const policy = rules.policy;
  const calls: ProviderToolCall[] = (item.toolCalls ?? []).map((c, i) => ({
    id: c.id,
    name: c.name,
    args: policy && clipped[i] ? clipArgs(c.args ?? {}, policy.maxArgChars) : (c.args ?? {}),
  }));
  const thinking = (item.thinkingParts ?? []).filter(
    (t) => !t.providerKind || t.providerKind === rules.providerKind,
  );
  if (!item.text && calls.length === 0 && thinking.length === 0) return null;
  return {
    role: 'assistant',
    text: item.text,
    ...(thinking.length ? { thinking } : {}),
    toolCalls: calls,
  };
}

function userContent(
  item: Extract<Item, { kind: 'user_message' }>,
  vision: boolean,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (vision)
    for (const img of item.images ?? [])
      blocks.push({ type: 'image', mimeType: img.mimeType, dataBase64: img.dataBase64 });
  else if (item.images?.length)
    blocks.push({
      type: 'text',
      text: `[${item.images.length} image(s) omitted: this model cannot see images]`,
    });
  if (item.text)
    blocks.push({
      type: 'text',
      text: item.steered ? `[The user added while you were working] ${item.text}` : item.text,
    });
  return blocks;
}

function resultContent(
  item: Extract<Item, { kind: 'tool_result' }>,
  vision: boolean,
  clipTo?: number,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const b of item.content) {
    if (b.type === 'image') {
      // Old screenshots are the costliest thing in a long context: only recent ones are resent.
      blocks.push(
        vision && clipTo === undefined
          ? b
          : {
              type: 'text',
              text: `[image omitted (${b.mimeType})${vision ? '' : ': this model cannot see images'}]`,
            },
      );
    } else {
      const t = clipTo === undefined ? b.text : clipText(b.text, clipTo);
      blocks.push({
        type: 'text',
        text: item.untrusted ? wrapUntrusted(t, item.name ?? 'tool') : t,
      });
    }
  }
  if (blocks.length === 0)
    blocks.push({ type: 'text', text: item.ok ? '(no output)' : '(failed without a message)' });
  return blocks;
}
