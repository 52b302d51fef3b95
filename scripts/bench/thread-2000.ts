/**
 * A 2,000-item thread: building its session context, and opening it in the side panel.
 *
 * The thread is made by the real engine in Node (fake-indexeddb): 10 turns, each a user message,
 * 22 model steps (a markdown paragraph and 4 parallel calls of a visible read tool) and a final
 * answer = 2,000 items. Then:
 * - Node: `buildContext` over its 2,000 nodes (the provider messages a model call would get),
 *   against a baseline that copies the same nodes (JSON round trip).
 * - Chromium: the same thread and nodes are written into the extension's IndexedDB, the real panel
 *   page is opened on it, and panel-hook.js measures from the arrival of the message carrying the
 *   thread's snapshot to every row being in the DOM and the next frame painted. Baseline, same page:
 *   the same items appended as bare DOM (one element per item, its text) — the floor for putting
 *   2,000 items on screen.
 */
import { z } from 'zod';
import type { Page } from 'playwright-core';
import { buildContext, DEFAULT_TRUNCATION } from '../../src/engine/context/context-builder';
import type { NodeRecord, ThreadRecord } from '../../src/store/records';
import type { AgentTool } from '../../src/tools/types';
import type { ProviderRequest, StreamEvent, Provider } from '../../src/providers/types';
import { launch, lightClient, openHookedPanel, selectThread } from './chromium';
import { makeNodeRig } from './node-engine';
import { fmtMs, fmtRatio, median, round, sleep, type BenchResult } from './stats';

const TURNS = 10;
const STEPS = 22;
const PARALLEL = 4;
const TARGET_MS = 150;

const lookupTool: AgentTool<{ query: string; page: number }> = {
  name: 'lookup',
  label: 'Look up',
  description: 'Looks something up (benchmark).',
  parameters: z.object({ query: z.string(), page: z.number() }),
  level: 'builtin',
  effects: 'read',
  async execute(_id, p) {
    return {
      content: [
        {
          type: 'text',
          text: `Result for "${p.query}" (page ${p.page}): ${'lorem ipsum dolor sit amet '.repeat(6)}`,
        },
      ],
    };
  },
};

/** A step: a paragraph of markdown and PARALLEL lookups; after STEPS steps, a final answer. */
class ThreadProvider implements Provider {
  readonly id = 'bench';
  readonly kind = 'scripted' as const;
  stream(req: ProviderRequest): AsyncIterable<StreamEvent> {
    let results = 0;
    for (let i = req.messages.length - 1; i >= 0 && req.messages[i].role !== 'user'; i--)
      if (req.messages[i].role === 'tool') results++;
    const step = results / PARALLEL;
    return (async function* (): AsyncGenerator<StreamEvent> {
      if (step >= STEPS) {
        yield {
          type: 'text_delta',
          text: `## Summary\n\nAll **${STEPS}** steps are done. The results agree; see the list above for details.`,
        };
        yield { type: 'usage', usage: { inputTokens: 1200, outputTokens: 40 } };
        yield { type: 'stop', reason: 'end' };
        return;
      }
      yield {
        type: 'text_delta',
        text: `Step ${step + 1}: checking **four** sources in parallel — \`lookup\` with pages ${step * PARALLEL + 1}–${step * PARALLEL + PARALLEL}, then I compare them.`,
      };
      for (let k = 0; k < PARALLEL; k++) {
        yield {
          type: 'tool_call_start',
          index: k,
          id: `c${step}_${k}_${Math.random().toString(36).slice(2, 8)}`,
          name: 'lookup',
        };
        yield {
          type: 'tool_call_delta',
          index: k,
          argsFragment: JSON.stringify({ query: `topic ${step}`, page: step * PARALLEL + k + 1 }),
        };
        yield { type: 'tool_call_end', index: k };
      }
      yield { type: 'usage', usage: { inputTokens: 1000, outputTokens: 60 } };
      yield { type: 'stop', reason: 'tool_use' };
    })();
  }
}

export async function makeThread(): Promise<{
  thread: ThreadRecord;
  nodes: NodeRecord[];
  path: NodeRecord[];
  contextMs: number[];
  copyMs: number[];
  pathReadMs: number[];
  messages: number;
}> {
  const rig = await makeNodeRig(new ThreadProvider(), [lookupTool]);
  try {
    const { threadId } = await rig.client.ok<{ threadId: string }>({
      type: 'thread.create',
      title: 'A long research thread',
    });
    for (let t = 0; t < TURNS; t++) {
      const { runId } = await rig.client.ok<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: `Question ${t + 1}: compare the sources on topic ${t + 1} and summarize.` },
      });
      const done = await rig.client.waitFor(
        (e) => e.type === 'turn.complete' && e.runId === runId,
        300_000,
      );
      if (done.type === 'turn.complete' && done.stopReason !== 'end')
        throw new Error(`thread-2000: turn ended ${done.stopReason}`);
    }
    const thread = (await rig.store.db.threads.get(threadId))!;
    const nodes = await rig.store.db.nodes.where('threadId').equals(threadId).toArray();
    const path = await rig.store.threads.path(threadId, thread.leafId);
    const opts = { vision: false, providerKind: 'openai', truncate: DEFAULT_TRUNCATION };
    let messages = 0;
    const contextMs: number[] = [];
    const copyMs: number[] = [];
    for (let i = 0; i < 25; i++) {
      let t0 = performance.now();
      messages = buildContext(path, opts).length;
      contextMs.push(performance.now() - t0);
      t0 = performance.now();
      JSON.parse(JSON.stringify(path));
      copyMs.push(performance.now() - t0);
    }
    // What a model step reads before building the context: the thread's nodes, then the path.
    const pathReadMs: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      await rig.store.threads.path(threadId, thread.leafId);
      pathReadMs.push(performance.now() - t0);
    }
    return {
      thread,
      nodes,
      path,
      contextMs: contextMs.slice(5),
      copyMs: copyMs.slice(5),
      pathReadMs: pathReadMs.slice(2),
      messages,
    };
  } finally {
    rig.close();
  }
}

/** Writes the thread and its nodes into the extension's database from an extension page. */
export async function seed(page: Page, thread: ThreadRecord, nodes: NodeRecord[]): Promise<void> {
  await page.evaluate(
    async ({ thread, nodes }) => {
      const req = indexedDB.open('keel');
      const db: IDBDatabase = await new Promise((resolve, reject) => {
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const tx = db.transaction(['threads', 'nodes'], 'readwrite');
      tx.objectStore('threads').put(thread);
      for (const n of nodes) tx.objectStore('nodes').put(n);
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    { thread, nodes } as { thread: unknown; nodes: unknown[] },
  );
}

interface Timing {
  snapshotAt: number | null;
  renderedAt: number | null;
  renderedFrameAt: number | null;
}

async function openAndTime(
  panel: Page,
  threadId: string,
  rows: number,
): Promise<{ domMs: number; frameMs: number; loadMs: number }> {
  await selectThread(panel, threadId, rows);
  await panel.waitForFunction(
    () => (globalThis as any).__keelBench.renderedFrameAt !== null,
    undefined,
    { timeout: 60_000 },
  );
  const t = (await panel.evaluate(() => {
    const b = (globalThis as any).__keelBench;
    return {
      snapshotAt: b.snapshotAt,
      renderedAt: b.renderedAt,
      renderedFrameAt: b.renderedFrameAt,
      origin: performance.timeOrigin,
    };
  })) as Timing & { origin: number };
  return {
    domMs: t.renderedAt! - t.snapshotAt!,
    frameMs: t.renderedFrameAt! - t.snapshotAt!,
    loadMs: t.renderedFrameAt! - t.origin,
  };
}

/** The same items as bare DOM in the same page: one element per item with its text. */
async function bareDom(panel: Page, texts: string[]): Promise<number> {
  return panel.evaluate(async (texts) => {
    const host = document.createElement('div');
    host.style.cssText =
      'position:fixed;inset:0;overflow:auto;background:#fff;z-index:99999;font:14px system-ui';
    const t0 = performance.now();
    for (const text of texts) {
      const el = document.createElement('div');
      el.className = 'bare-item';
      el.textContent = text;
      host.appendChild(el);
    }
    document.body.appendChild(host);
    // After the next frame: a task posted from its rAF callback runs once style, layout and paint are done.
    await new Promise<void>((r) =>
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => r();
        ch.port2.postMessage(0);
      }),
    );
    const ms = performance.now() - t0;
    host.remove();
    return ms;
  }, texts);
}

function itemText(n: NodeRecord): string {
  const it = n.item as unknown as Record<string, unknown>;
  if (typeof it.text === 'string') return it.text;
  if (it.kind === 'tool_call') return `${String(it.label)} ${JSON.stringify(it.params)}`;
  if (it.kind === 'tool_result')
    return ((it.content as { type: string; text?: string }[]) ?? [])
      .map((c) => c.text ?? '')
      .join(' ');
  return String(it.kind);
}

export async function benchThread2000(opts: { trials?: number } = {}): Promise<BenchResult> {
  const trials = opts.trials ?? 5;
  const t0 = performance.now();
  const made = await makeThread();
  const buildMs = performance.now() - t0;
  const items = made.path.length;
  const context = {
    p50: round(median(made.contextMs), 2),
    max: round(Math.max(...made.contextMs), 2),
  };
  const copy = { p50: round(median(made.copyMs), 2) };

  const ext = await launch();
  try {
    const { page } = await lightClient(ext);
    await seed(page, made.thread, made.nodes);
    const panel = await openHookedPanel(ext);
    // Learn how many rows the panel shows for this thread, once it is fully rendered.
    await selectThread(panel, made.thread.threadId);
    let rows = 0;
    for (let stable = 0; stable < 5; ) {
      await sleep(200);
      const n = await panel.evaluate(
        (id) =>
          document.querySelectorAll(`.messages[data-thread-id="${id}"] [data-item-id]`).length,
        made.thread.threadId,
      );
      stable = n === rows && n > 0 ? stable + 1 : 0;
      rows = n;
    }
    const dom: number[] = [];
    const frame: number[] = [];
    const load: number[] = [];
    const bare: number[] = [];
    const texts = made.path.map(itemText);
    for (let i = 0; i < trials; i++) {
      const r = await openAndTime(panel, made.thread.threadId, rows);
      dom.push(r.domMs);
      frame.push(r.frameMs);
      load.push(r.loadMs);
      bare.push(await bareDom(panel, texts));
    }
    const render = {
      p50: round(median(frame), 1),
      domP50: round(median(dom), 1),
      max: round(Math.max(...frame), 1),
    };
    const bareP50 = round(median(bare), 1);
    return {
      name: '2,000-item thread',
      file: 'thread-2000.json',
      data: {
        items,
        nodes: made.nodes.length,
        shape: `${TURNS} turns × (user + ${STEPS} steps × (assistant + ${PARALLEL} calls + ${PARALLEL} results) + final answer)`,
        threadBuiltInNodeMs: round(buildMs, 0),
        buildContext: {
          ...context,
          messages: made.messages,
          samplesMs: made.contextMs.map((x) => round(x, 2)),
        },
        buildContextBaselineJsonCopyMs: copy,
        buildContextRatio: round(context.p50 / copy.p50, 2),
        // Informational: reading the 2,000 nodes and walking the path (fake-indexeddb), which a
        // model step does before buildContext.
        pathReadFakeIndexedDbMs: { p50: round(median(made.pathReadMs), 1) },
        panel: {
          rowsRendered: rows,
          snapshotToRenderedFrameMs: render,
          snapshotToDomMs: { p50: round(median(dom), 1) },
          pageLoadToRenderedFrameMs: { p50: round(median(load), 1) },
          samplesMs: frame.map((x) => round(x, 1)),
          baselineBareDomMs: { p50: bareP50, samplesMs: bare.map((x) => round(x, 1)) },
          ratio: round(render.p50 / bareP50, 2),
        },
        target: `≤ ${TARGET_MS} ms`,
      },
      rows: [
        {
          metric: `2,000-item thread: buildContext in Node (${items} nodes → ${made.messages} messages)`,
          value: fmtMs(context.p50),
          baseline: `JSON round trip of the nodes ${fmtMs(copy.p50)}`,
          ratio: fmtRatio(context.p50 / copy.p50),
          target: `≤ ${TARGET_MS} ms`,
          ok: context.p50 <= TARGET_MS,
        },
        {
          metric: `2,000-item thread: open in the panel, snapshot → rendered (${rows} rows)`,
          value: `${fmtMs(render.p50)} (DOM ${fmtMs(render.domP50)})`,
          baseline: `same items as bare DOM ${fmtMs(bareP50)}`,
          ratio: fmtRatio(render.p50 / bareP50),
          target: `≤ ${TARGET_MS} ms`,
          ok: render.p50 <= TARGET_MS,
        },
      ],
    };
  } finally {
    await ext.close();
  }
}
