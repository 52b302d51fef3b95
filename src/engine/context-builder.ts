import type { ContentBlock, Item } from '../protocol';
import type { ProviderMessage, ProviderToolCall } from '../providers/types';
import type { NodeRecord } from '../store/records';
import { wrapUntrusted } from './untrusted';

export interface ContextOptions {
  vision: boolean;
  providerKind: string;
  /**
   * Old tool results are clipped in the context sent to the model (spec/000 "truncation"): all
   * but the `keepRecent` most recent results are cut to `maxChars`, except whitelisted tools
   * (a skill's instructions are never truncated). The store keeps everything.
   */
  truncate?: { keepRecent: number; maxChars: number; whitelist: ReadonlySet<string> };
}

export const DEFAULT_TRUNCATION = { keepRecent: 6, maxChars: 600, whitelist: new Set(['get_skill']) } as const;

/** Text a planning round's assistant message is followed by (spec/000 §1: the [continue] transition). */
export const PLAN_CONTINUE = '[continue]';

const NOT_EXECUTED = 'This tool call was not executed (the turn ended before it ran).';

/**
 * Build the provider conversation from the path root → leaf (spec/001 §2 buildSessionContext).
 *
 * Invariants the provider APIs demand, enforced here whatever the tree holds:
 * - every tool call of an assistant message is followed by exactly one result, in call order,
 *   before any other message (a missing result — a crash, an interrupt, a fork mid-call — gets a
 *   synthetic "not executed" result);
 * - parallel calls persisted as interleaved tool_call → tool_result nodes regroup under their
 *   assistant message;
 * - notices for the model and steered user messages that land inside a tool group are sent
 *   after the group's results;
 * - consecutive user contents merge into one user message.
 */
export function buildContext(fullPath: NodeRecord[], opts: ContextOptions): ProviderMessage[] {
  const out: ProviderMessage[] = [];
  // A compaction replaces everything up to the node it summarizes (the latest one wins).
  let path = fullPath;
  for (let i = fullPath.length - 1; i >= 0; i--) {
    const it = fullPath[i].item;
    if (it.kind === 'notice' && it.code === 'compaction' && it.summary && it.summarizesUpTo) {
      const cut = fullPath.findIndex((n) => n.id === it.summarizesUpTo);
      if (cut >= 0 && cut < i) {
        out.push({ role: 'user', content: [{ type: 'text', text: `[Summary of the earlier conversation, written to fit the context window]\n${it.summary}` }] });
        path = [...fullPath.slice(cut + 1, i), ...fullPath.slice(i + 1)];
      }
      break;
    }
  }
  // Which tool results may be clipped: all but the most recent few.
  const resultIds = path.filter((n) => n.item.kind === 'tool_result').map((n) => n.id);
  const clip = opts.truncate ? new Set(resultIds.slice(0, Math.max(0, resultIds.length - opts.truncate.keepRecent))) : new Set<string>();
  let group: { calls: ProviderToolCall[]; results: Map<string, ProviderMessage & { role: 'tool' }>; deferred: ContentBlock[] } | null = null;

  const pushUser = (content: ContentBlock[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === 'user') last.content.push(...content);
    else out.push({ role: 'user', content: [...content] });
  };

  const closeGroup = () => {
    if (!group) return;
    for (const call of group.calls) {
      out.push(
        group.results.get(call.id) ?? { role: 'tool', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: NOT_EXECUTED }], isError: true },
      );
    }
    const deferred = group.deferred;
    group = null;
    pushUser(deferred);
  };

  for (const node of path) {
    const item = node.item;
    switch (item.kind) {
      case 'user_message': {
        const content = userContent(item, opts.vision);
        if (group) group.deferred.push(...content);
        else pushUser(content);
        break;
      }
      case 'assistant_message': {
        closeGroup();
        const calls: ProviderToolCall[] = (item.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args ?? {} }));
        const thinking = (item.thinkingParts ?? []).filter((t) => !t.providerKind || t.providerKind === opts.providerKind);
        // An empty assistant message (e.g. a refusal with no content) is dropped: APIs reject them.
        if (!item.text && calls.length === 0 && thinking.length === 0) break;
        out.push({ role: 'assistant', text: item.text, ...(thinking.length ? { thinking } : {}), toolCalls: calls });
        if (calls.length) group = { calls, results: new Map(), deferred: [] };
        if (item.round === 'plan') pushUser([{ type: 'text', text: PLAN_CONTINUE }]);
        break;
      }
      case 'tool_result': {
        if (!group || !group.calls.some((c) => c.id === item.toolCallId)) break; // orphan: no call to answer
        if (group.results.has(item.toolCallId)) break;
        const call = group.calls.find((c) => c.id === item.toolCallId)!;
        const clipTo = clip.has(node.id) && opts.truncate && !opts.truncate.whitelist.has(call.name) ? opts.truncate.maxChars : undefined;
        group.results.set(item.toolCallId, {
          role: 'tool',
          toolCallId: item.toolCallId,
          toolName: call.name,
          content: resultContent(item, opts.vision, clipTo),
          isError: !item.ok,
        });
        break;
      }
      case 'notice': {
        if (!item.forModel) break;
        const block: ContentBlock = { type: 'text', text: `[Keel] ${item.text}` };
        if (group) group.deferred.push(block);
        else pushUser([block]);
        break;
      }
      case 'tool_call':
        break; // carried by the assistant message's toolCalls
    }
  }
  closeGroup();
  return out;
}

function userContent(item: Extract<Item, { kind: 'user_message' }>, vision: boolean): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (vision) for (const img of item.images ?? []) blocks.push({ type: 'image', mimeType: img.mimeType, dataBase64: img.dataBase64 });
  else if (item.images?.length) blocks.push({ type: 'text', text: `[${item.images.length} image(s) omitted: this model cannot see images]` });
  if (item.text) blocks.push({ type: 'text', text: item.steered ? `[The user added while you were working] ${item.text}` : item.text });
  return blocks;
}

function clipText(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters of this older result omitted; repeat the call if you need them]`;
}

function resultContent(item: Extract<Item, { kind: 'tool_result' }>, vision: boolean, clipTo?: number): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const b of item.content) {
    if (b.type === 'image') {
      // Old screenshots are the costliest thing in a long context: only recent ones are resent.
      blocks.push(vision && clipTo === undefined ? b : { type: 'text', text: `[image omitted (${b.mimeType})${vision ? '' : ': this model cannot see images'}]` });
    } else {
      const t = clipText(b.text, clipTo);
      blocks.push({ type: 'text', text: item.untrusted ? wrapUntrusted(t, item.name ?? 'tool') : t });
    }
  }
  if (blocks.length === 0) blocks.push({ type: 'text', text: item.ok ? '(no output)' : '(failed without a message)' });
  return blocks;
}
