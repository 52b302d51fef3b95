import type { ContentBlock, Item } from '../protocol';
import type { ProviderMessage, ProviderToolCall } from '../providers/types';
import type { NodeRecord } from '../store/records';
import {
  argsSavings,
  clipArgs,
  clippedResults,
  clipPolicyFor,
  clipText,
  DEFAULT_CLIP_POLICY,
  type ClipCandidate,
  type ClipPolicy,
} from './context-clipping';
import { wrapUntrusted, wrapUntrustedNotes } from './untrusted';

export interface ContextOptions {
  vision: boolean;
  providerKind: string;
  /**
   * Old tool results (and their calls' long arguments) are clipped in the context sent to the
   * model, in batches (context-clipping.ts), except whitelisted tools (a skill's instructions are
   * never truncated). The store keeps everything. Absent: nothing is clipped.
   */
  truncate?: ClipPolicy;
}

/** The default policy at the batch size of a large window (tests and benchmarks). */
export const DEFAULT_TRUNCATION: ClipPolicy = DEFAULT_CLIP_POLICY;

/** The context options of a run's model calls (its model's vision, kind and window). */
export function runContextOptions(env: {
  modelInfo: { vision: boolean; contextWindow: number };
  transport: { kind: string };
}): ContextOptions {
  return {
    vision: env.modelInfo.vision,
    providerKind: env.transport.kind,
    truncate: clipPolicyFor(env.modelInfo.contextWindow),
  };
}

/**
 * How the summary of a compaction re-enters the context: as the model's own notes, inside an
 * untrusted block (untrusted.ts), because it was written from page content that may carry
 * instructions. It sits first, right after the system prompt, so the prefix before it (tools,
 * system) stays cached.
 */
const SUMMARY_HEADER =
  '[Your own notes from the earlier part of this conversation, summarized to fit the context window.]';

export function summaryContent(summary: string): ContentBlock[] {
  return [{ type: 'text', text: `${SUMMARY_HEADER}\n${wrapUntrustedNotes(summary)}` }];
}

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
        out.push({ role: 'user', content: summaryContent(it.summary) });
        path = [...fullPath.slice(cut + 1, i), ...fullPath.slice(i + 1)];
      }
      break;
    }
  }
  const policy = opts.truncate;
  const clip = policy
    ? clippedResults(clipCandidates(path, policy, opts.vision), policy)
    : new Set<string>();
  // The calls whose results are clipped send their long arguments clipped too.
  const clippedCalls = new Set<string>();
  for (const n of path)
    if (n.item.kind === 'tool_result' && clip.has(n.id)) clippedCalls.add(n.item.toolCallId);
  let group: {
    calls: ProviderToolCall[];
    results: Map<string, ProviderMessage & { role: 'tool' }>;
    deferred: ContentBlock[];
  } | null = null;

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
        group.results.get(call.id) ?? {
          role: 'tool',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: NOT_EXECUTED }],
          isError: true,
        },
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
        const calls: ProviderToolCall[] = (item.toolCalls ?? []).map((c) => ({
          id: c.id,
          name: c.name,
          args:
            policy && clippedCalls.has(c.id)
              ? clipArgs(c.args ?? {}, policy.maxArgChars)
              : (c.args ?? {}),
        }));
        const thinking = (item.thinkingParts ?? []).filter(
          (t) => !t.providerKind || t.providerKind === opts.providerKind,
        );
        // An empty assistant message (e.g. a refusal with no content) is dropped: APIs reject them.
        if (!item.text && calls.length === 0 && thinking.length === 0) break;
        out.push({
          role: 'assistant',
          text: item.text,
          ...(thinking.length ? { thinking } : {}),
          toolCalls: calls,
        });
        if (calls.length) group = { calls, results: new Map(), deferred: [] };
        if (item.round === 'plan') pushUser([{ type: 'text', text: PLAN_CONTINUE }]);
        break;
      }
      case 'tool_result': {
        if (!group || !group.calls.some((c) => c.id === item.toolCallId)) break; // orphan: no call to answer
        if (group.results.has(item.toolCallId)) break;
        const call = group.calls.find((c) => c.id === item.toolCallId)!;
        const clipTo = clip.has(node.id) && policy ? policy.maxChars : undefined;
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

/** Rough tokens of an image the APIs bill (a screenshot-sized one). */
const IMAGE_TOKENS = 1600;

/**
 * Every tool result on the path with what clipping it would save (≈ 4 characters a token): its
 * long text blocks, its images (an old one is replaced by a placeholder), its call's arguments.
 */
function clipCandidates(path: NodeRecord[], policy: ClipPolicy, vision: boolean): ClipCandidate[] {
  const calls = new Map<string, { name: string; args: unknown }>();
  const out: ClipCandidate[] = [];
  for (const node of path) {
    const item = node.item;
    if (item.kind === 'assistant_message')
      for (const c of item.toolCalls ?? []) calls.set(c.id, { name: c.name, args: c.args });
    if (item.kind !== 'tool_result') continue;
    const call = calls.get(item.toolCallId);
    const name = call?.name ?? item.name ?? '';
    let chars = call ? argsSavings(call.args, policy.maxArgChars) : 0;
    let images = 0;
    for (const b of item.content) {
      if (b.type === 'image') images += vision ? IMAGE_TOKENS : 0;
      else chars += Math.max(0, b.text.length - policy.maxChars - 100);
    }
    out.push({
      id: node.id,
      savings: Math.ceil(chars / 4) + images,
      clippable: !policy.whitelist.has(name),
    });
  }
  return out;
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
