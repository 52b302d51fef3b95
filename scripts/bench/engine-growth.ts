/**
 * Engine step growth: the per-step overhead of the same short turn on a thread of about 10 nodes
 * and on one of about 2,000 nodes (issue 17: the ratio must stay ≤ 1.2, i.e. a step's cost must
 * not grow with the thread). Node only: the engine of node-engine.ts over fake-indexeddb, the
 * instant provider and the no-op tool, so what grows is the engine's own reads and work.
 *
 * The large thread is grown by the real engine (turns of `growSteps` tool steps on one thread:
 * each step adds an assistant message and a tool result). Timed turns on the small and the large
 * thread alternate (`runs` rounds; the engine benchmark runs 15) so that load from other
 * processes hits both alike; medians are reported. Each timed small turn runs on a new thread,
 * so it always starts from ~0 nodes;
 * each timed large turn adds its own ~2 × `steps` nodes to the large thread (noted in the JSON).
 */
import { InstantProvider, makeNodeRig, noopTool, type NodeRig } from './node-engine';
import { median, round } from './stats';

export const GROWTH_TARGET = 1.2;

async function turnOn(rig: NodeRig, threadId: string): Promise<number> {
  const t0 = performance.now();
  const { runId } = await rig.client.ok<{ runId: string }>({
    type: 'turn.submit',
    threadId,
    input: { text: 'go' },
  });
  const done = await rig.client.waitFor(
    (e) => e.type === 'turn.complete' && e.runId === runId,
    300_000,
  );
  if (done.type === 'turn.complete' && done.stopReason !== 'end')
    throw new Error(`growth turn ended ${done.stopReason}: ${done.error?.message ?? ''}`);
  return performance.now() - t0;
}

/**
 * The thread's node count from the index: counting must not read (and leave as garbage) every
 * node of the database between two timed turns, or the collector bills the next turn for it.
 */
function nodeCount(rig: NodeRig, threadId: string): Promise<number> {
  return rig.store.db.nodes.where('threadId').equals(threadId).count();
}

export async function benchEngineGrowth(
  opts: { steps?: number; runs?: number; targetNodes?: number; growSteps?: number } = {},
) {
  const steps = opts.steps ?? 5;
  const runs = opts.runs ?? 5;
  const targetNodes = opts.targetNodes ?? 2000;
  const growSteps = opts.growSteps ?? 100;
  let turnSteps = growSteps;
  const rig = await makeNodeRig(
    new InstantProvider(() => turnSteps, { name: 'noop', args: (i) => ({ i }) }),
    [noopTool],
  );
  try {
    const { threadId: big } = await rig.client.ok<{ threadId: string }>({ type: 'thread.create' });
    const g0 = performance.now();
    while ((await nodeCount(rig, big)) < targetNodes) await turnOn(rig, big);
    const growMs = performance.now() - g0;
    const bigNodesBefore = await nodeCount(rig, big);
    turnSteps = steps;
    await rig.turn(); // warm-up at the timed shape
    const small: number[] = [];
    const large: number[] = [];
    let smallNodes = 0;
    for (let r = 0; r < runs; r++) {
      const s = await rig.turn();
      small.push(s.ms / steps);
      smallNodes = await nodeCount(rig, s.threadId);
      large.push((await turnOn(rig, big)) / steps);
    }
    const smallMs = median(small);
    const largeMs = median(large);
    return {
      steps,
      runs,
      smallThreadNodesAfterTurn: smallNodes,
      largeThreadNodesBefore: bigNodesBefore,
      largeThreadNodesAfter: await nodeCount(rig, big),
      growMs: round(growMs),
      smallPerStepMs: round(smallMs),
      largePerStepMs: round(largeMs),
      ratio: round(largeMs / smallMs, 3),
      samples: { small: small.map((x) => round(x)), large: large.map((x) => round(x)) },
    };
  } finally {
    rig.close();
  }
}
