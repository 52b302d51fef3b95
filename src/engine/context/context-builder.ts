import { stepMark } from '../../util/step-marks';
import type { ContentBlock } from '../../protocol';
import type { ProviderMessage } from '../../providers/types';
import type { NodeRecord } from '../../store/records';
import { Assembly } from './context-assembly';
import { pathMark, type PathMark } from '../../store/path-lineage';
import { startsWithSame, ThreadMemo } from './path-memo';
import {
  argsSavings,
  clipScan,
  type ClipScan,
  clipPolicyFor,
  DEFAULT_CLIP_POLICY,
  type ClipCandidate,
  type ClipPolicy,
} from './context-clipping';
import { wrapUntrustedNotes } from './untrusted';

export { PLAN_CONTINUE } from './context-assembly';

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
 *
 * A long thread's next context is the previous one plus the nodes appended since, unless a batch
 * of old results gets clipped or a compaction lands: when `fullPath` begins with the very
 * (frozen, so unchanged) nodes of the thread's previous build, under the same options, the build
 * resumes from there (`Resumable`), so a step's cost does not grow with the thread. The result is
 * the same as a build from scratch (test/unit/context/context-resume.test.ts).
 */
export function buildContext(fullPath: NodeRecord[], opts: ContextOptions): ProviderMessage[] {
  stepMark('context.build');
  const messages = resume(fullPath, opts) ?? fromScratch(fullPath, opts);
  stepMark('context.built');
  return messages;
}

/** Where a build stopped, to resume from (one per thread, the latest). */
interface Resumable {
  /** The path built, root → leaf (this entry's own array). */
  nodes: NodeRecord[];
  /** The store's mark of the path `nodes` copies, if it marked it (path-lineage.ts). */
  mark: PathMark | undefined;
  optsKey: string;
  /** Tool calls seen on the (post-compaction) path, for the clip candidates of later results. */
  calls: Map<string, { name: string; args: unknown }>;
  candidates: ClipCandidate[];
  boundary: number;
  /** The clip replay over `candidates`, to continue when more are appended. */
  scan: ClipScan | undefined;
  assembly: Assembly;
}

const resumable = new ThreadMemo<Resumable>();

function optsKey(opts: ContextOptions): string {
  const p = opts.truncate;
  const policy = p
    ? `${p.keepRecent}|${p.maxChars}|${p.maxArgChars}|${p.batchTokens}|${[...p.whitelist].join(',')}`
    : '-';
  return `${opts.vision}|${opts.providerKind}|${policy}`;
}

function isCompaction(n: NodeRecord): boolean {
  const it = n.item;
  return it.kind === 'notice' && it.code === 'compaction' && !!it.summary && !!it.summarizesUpTo;
}

function resume(fullPath: NodeRecord[], opts: ContextOptions): ProviderMessage[] | null {
  const threadId = fullPath[0]?.threadId;
  const r = resumable.get(threadId);
  if (!r || threadId === undefined || r.optsKey !== optsKey(opts)) return null;
  // The same objects as the (frozen) nodes of the build being resumed: unchanged since.
  if (!startsWithSame(fullPath, r.nodes, r.mark)) return null;
  const tail = fullPath.slice(r.nodes.length);
  for (const n of tail) if (!Object.isFrozen(n) || isCompaction(n)) return null;
  // From here the entry is extended in place: taken out first, so a throw leaves none behind.
  resumable.delete(threadId);
  const policy = opts.truncate;
  if (policy) {
    addCandidates(r.calls, r.candidates, tail, policy, opts.vision);
    // A new batch of clipped results changes older messages: that build starts over.
    r.scan = clipScan(r.candidates, policy, r.scan);
    if (r.scan.boundary !== r.boundary) return null;
  }
  r.assembly.detachLast();
  for (const n of tail) {
    r.nodes.push(n);
    r.assembly.add(n);
  }
  r.mark = pathMark(fullPath);
  resumable.keep(threadId, r);
  return r.assembly.messages();
}

function fromScratch(fullPath: NodeRecord[], opts: ContextOptions): ProviderMessage[] {
  const first: ProviderMessage[] = [];
  // A compaction replaces everything up to the node it summarizes (the latest one wins).
  let path = fullPath;
  for (let i = fullPath.length - 1; i >= 0; i--) {
    const it = fullPath[i].item;
    if (it.kind === 'notice' && it.code === 'compaction' && it.summary && it.summarizesUpTo) {
      const cut = fullPath.findIndex((n) => n.id === it.summarizesUpTo);
      if (cut >= 0 && cut < i) {
        first.push({ role: 'user', content: summaryContent(it.summary) });
        path = [...fullPath.slice(cut + 1, i), ...fullPath.slice(i + 1)];
      }
      break;
    }
  }
  const policy = opts.truncate;
  const calls = new Map<string, { name: string; args: unknown }>();
  const candidates: ClipCandidate[] = [];
  let boundary = 0;
  let scan: ClipScan | undefined;
  const clip = new Set<string>();
  if (policy) {
    addCandidates(calls, candidates, path, policy, opts.vision);
    scan = clipScan(candidates, policy);
    boundary = scan.boundary;
    for (const c of candidates.slice(0, boundary)) if (c.clippable) clip.add(c.id);
  }
  // The calls whose results are clipped send their long arguments clipped too.
  const clippedCalls = new Set<string>();
  for (const n of path)
    if (n.item.kind === 'tool_result' && clip.has(n.id)) clippedCalls.add(n.item.toolCallId);
  const assembly = new Assembly(
    { vision: opts.vision, providerKind: opts.providerKind, policy, clip, clippedCalls },
    first,
  );
  for (const n of path) assembly.add(n);
  const threadId = fullPath[0]?.threadId;
  if (threadId !== undefined && fullPath.every((n) => Object.isFrozen(n)))
    resumable.keep(threadId, {
      nodes: fullPath.slice(),
      mark: pathMark(fullPath),
      optsKey: optsKey(opts),
      calls,
      candidates,
      boundary,
      scan,
      assembly,
    });
  return assembly.messages();
}

/** Rough tokens of an image the APIs bill (a screenshot-sized one). */
const IMAGE_TOKENS = 1600;

/**
 * Appends every tool result of `nodes` (in path order) with what clipping it would save
 * (≈ 4 characters a token): its long text blocks, its images (an old one is replaced by a
 * placeholder), its call's arguments. `calls` collects the calls seen so far.
 */
function addCandidates(
  calls: Map<string, { name: string; args: unknown }>,
  out: ClipCandidate[],
  nodes: NodeRecord[],
  policy: ClipPolicy,
  vision: boolean,
): void {
  for (const node of nodes) {
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
}
