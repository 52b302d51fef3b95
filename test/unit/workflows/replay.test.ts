/**
 * Workflow runs on the real engine (test/unit/engine/harness.ts): recorded from a scripted
 * model's turn on a fake shop, saved, and replayed with the same tools and Gatekeeper — without
 * model requests, after a markup change, with other inputs, across a worker stop, with approvals,
 * interrupts and divergences (to the model, or a stop when there is none).
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, WorkflowMeta } from '../../../src/protocol';
import type { ScriptEntry } from '../../../src/providers/scripted';
import { makeRig, type Rig } from '../engine/harness';
import { FakeShop, SHOP } from './fake-shop';

type Complete = Extract<AgentEvent, { type: 'turn.complete' }>;

function demoScript(s: FakeShop): ScriptEntry[] {
  return [
    { text: 'Reading the page.', toolCalls: [{ name: 'browser_snapshot', args: {} }] },
    () => ({
      toolCalls: [
        {
          name: 'browser_type',
          args: { ref: s.refOf('searchbox', 'Search products'), text: 'blue mug', submit: true },
        },
      ],
    }),
    { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
    () => ({ toolCalls: [{ name: 'browser_click', args: { ref: s.refOf('link', 'Blue mug') } }] }),
    { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
    () => ({
      toolCalls: [
        { name: 'browser_type', args: { ref: s.refOf('spinbutton', 'Quantity'), text: '3' } },
      ],
    }),
    () => ({
      toolCalls: [{ name: 'browser_click', args: { ref: s.refOf('button', 'Add to cart') } }],
    }),
    { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
    { text: 'Done: 3 Blue mugs are in the cart.' },
  ];
}

/** Record the demo task and save it; the shop is reset for the replay. */
async function recorded(
  opts: {
    allow?: boolean;
    extraScript?: ScriptEntry[];
    settings?: Parameters<typeof makeRig>[0] extends infer O
      ? O extends { settings?: infer S }
        ? S
        : never
      : never;
  } = {},
) {
  const shop = new FakeShop();
  const rig = await makeRig({
    script: [...demoScript(shop), ...(opts.extraScript ?? [])],
    tools: shop.tools(),
  });
  if (opts.allow !== false)
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
  const { threadId, turnId, runId } = await rig.submit('Buy 3 of the blue mug');
  expect((await rig.client.turnComplete(runId)).stopReason).toBe('end');
  expect(shop.cart.get('Blue mug')).toBe(3);
  const { workflowId } = await rig.client.ack<{ workflowId: string }>({
    type: 'workflow.save',
    threadId,
    turnId,
    name: 'Reorder mugs',
  });
  shop.reset();
  return { shop, rig, workflowId, threadId, requests: () => rig.provider.requests.length };
}

/** The next workflows.updated whose list satisfies `pred` (publishing follows the ack). */
async function listed(rig: Rig, pred: (ws: WorkflowMeta[]) => boolean): Promise<WorkflowMeta[]> {
  const ev = await rig.client.waitFor((e) => e.type === 'workflows.updated' && pred(e.workflows));
  return (ev as Extract<AgentEvent, { type: 'workflows.updated' }>).workflows;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('condition not reached');
}

async function runWorkflow(
  rig: Rig,
  op: Record<string, unknown>,
): Promise<{ complete: Complete; threadId: string; runId: string }> {
  const r = await rig.client.ack<{ threadId: string; runId: string }>({
    type: 'workflow.run',
    ...op,
  });
  return { complete: await rig.client.turnComplete(r.runId), ...r };
}

describe('workflow.save', () => {
  it('keeps the acting steps and the task values as inputs, and lists the workflow', async () => {
    const { rig, workflowId } = await recorded();
    const meta = (await listed(rig, (ws) => ws.some((w) => w.workflowId === workflowId))).find(
      (w) => w.workflowId === workflowId,
    )!;
    expect(meta).toMatchObject({
      name: 'Reorder mugs',
      steps: 4,
      schedule: null,
      inputs: [
        { name: 'search_products', default: 'blue mug' },
        { name: 'quantity', default: '3' },
      ],
    });
    // A new UI hears about it in `initialized`.
    const init = await rig.client.send({ type: 'initialize', subscribe: ['*'] });
    expect(init.type).toBe('command.ack');
    expect(
      rig.client
        .of('initialized')
        .at(-1)!
        .workflows?.map((w) => w.workflowId),
    ).toEqual([workflowId]);
  });

  it('refuses a turn that did not act, a turn still running, and unknown turns', async () => {
    const rig = await makeRig({ script: [{ text: 'hello' }] });
    const { threadId, turnId, runId } = await rig.submit('hi');
    await rig.client.turnComplete(runId);
    expect(
      await rig.client.send({ type: 'workflow.save', threadId, turnId, name: 'x' }),
    ).toMatchObject({ type: 'command.reject', code: 'not_replayable' });
    expect(
      await rig.client.send({ type: 'workflow.save', threadId, turnId: 'nope', name: 'x' }),
    ).toMatchObject({ type: 'command.reject', code: 'not_found' });
    expect(
      await rig.client.send({ type: 'workflow.save', threadId: 'nope', turnId, name: 'x' }),
    ).toMatchObject({ type: 'command.reject', code: 'not_found' });
  });
});

describe('workflow.run', () => {
  it('replays the demo task with 0 model requests through the same tools', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId });
    expect(complete).toMatchObject({
      stopReason: 'end',
      workflow: { steps: 4, replayed: 4, modelRequests: 0 },
    });
    expect(complete.workflow?.diverged).toBeUndefined();
    expect(requests()).toBe(before);
    expect(shop.cart.get('Blue mug')).toBe(3);
    expect(shop.actions).toEqual([
      'type Search products blue mug',
      'click Blue mug',
      'type Quantity 3',
      'click Add to cart',
    ]);
  });

  it('replays after the markup changed (new refs, ids in URLs, product order) with 0 model requests', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    shop.variant = 1;
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId });
    expect(complete).toMatchObject({
      stopReason: 'end',
      workflow: { steps: 4, replayed: 4, modelRequests: 0 },
    });
    expect(requests()).toBe(before);
    expect(shop.cart.get('Blue mug')).toBe(3);
  });

  it('a run whose tab shows another page opens the start page first, then replays', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    shop.url = 'https://elsewhere.example/news';
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId });
    expect(complete).toMatchObject({
      stopReason: 'end',
      workflow: { steps: 4, replayed: 4, modelRequests: 0 },
    });
    expect(requests()).toBe(before);
    expect(shop.actions[0]).toBe(`open ${SHOP}/`);
    expect(shop.cart.get('Blue mug')).toBe(3);
    // Every later call names the tab the start page opened in.
    const calls = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .filter(
        (i) => i.kind === 'tool_call' && i.state === 'result' && i.name !== 'browser_tab_open',
      );
    expect(
      calls
        .slice(-3)
        .every((c) => c.kind === 'tool_call' && (c.params as { tabId?: number }).tabId === 2),
    ).toBe(true);
  });

  it('uses the inputs given for the run', async () => {
    const { shop, rig, workflowId } = await recorded();
    const { complete } = await runWorkflow(rig, { workflowId, inputs: { quantity: '2' } });
    expect(complete.workflow).toMatchObject({ replayed: 4, modelRequests: 0 });
    expect(shop.cart.get('Blue mug')).toBe(2);
    expect(
      await rig.client.send({ type: 'workflow.run', workflowId, inputs: { nope: '1' } }),
    ).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    expect(await rig.client.send({ type: 'workflow.run', workflowId: 'missing' })).toMatchObject({
      type: 'command.reject',
      code: 'not_found',
    });
  });

  it('a product that is gone stops with the step and the reason when no model is configured', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    await rig.store.settings.put({ ...(await rig.store.settings.get()), defaultModel: null });
    shop.products = shop.products.filter((p) => p.name !== 'Blue mug');
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId });
    expect(complete).toMatchObject({
      stopReason: 'error',
      error: { code: 'workflow_diverged' },
      workflow: { replayed: 1, modelRequests: 0, diverged: { step: 2 } },
    });
    expect(complete.workflow!.diverged!.reason).toContain('No link "Blue mug"');
    expect(requests()).toBe(before);
    expect(shop.cart.size).toBe(0);
  });

  it('a divergence hands the rest to the model with the workflow as its plan', async () => {
    const { shop, rig, workflowId, requests } = await recorded({
      extraScript: [{ text: 'The blue mug is no longer sold; I stopped.' }],
    });
    shop.products = shop.products.filter((p) => p.name !== 'Blue mug');
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId });
    expect(complete).toMatchObject({
      stopReason: 'end',
      workflow: { replayed: 1, modelRequests: 1, diverged: { step: 2 } },
    });
    expect(requests()).toBe(before + 1);
    const prompt = JSON.stringify(rig.provider.requests.at(-1)!.messages);
    expect(prompt).toContain('could not continue on its own');
    expect(prompt).toContain('Buy 3 of the blue mug');
  });

  it('with onDivergence "stop" it stops even with a model', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    shop.products = [];
    const before = requests();
    const { complete } = await runWorkflow(rig, { workflowId, onDivergence: 'stop' });
    expect(complete).toMatchObject({
      stopReason: 'error',
      workflow: { modelRequests: 0, diverged: { step: 2 } },
    });
    expect(requests()).toBe(before);
  });

  it('asks for approval like any run when the site is not allowed, and goes on after it', async () => {
    const { shop, rig, workflowId } = await recorded();
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'ask' });
    const r = await rig.client.ack<{ runId: string }>({ type: 'workflow.run', workflowId });
    const seen = new Set<string>();
    for (;;) {
      const ev = await rig.client.waitFor(
        (e) =>
          (e.type === 'approval.request' && !seen.has(e.approvalId)) ||
          (e.type === 'turn.complete' && e.runId === r.runId),
      );
      if (ev.type === 'turn.complete') {
        expect(ev).toMatchObject({
          stopReason: 'end',
          workflow: { replayed: 4, modelRequests: 0 },
        });
        break;
      }
      if (ev.type !== 'approval.request') throw new Error('unexpected');
      seen.add(ev.approvalId);
      await rig.client.ack({
        type: 'approval.response',
        approvalId: ev.approvalId,
        decision: 'allow_once',
      });
    }
    expect(seen.size).toBe(4);
    expect(shop.cart.get('Blue mug')).toBe(3);
  });

  it('an interrupted replay resumes where it stopped (the call it waited on never ran)', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'ask' });
    const r = await rig.client.ack<{ threadId: string; runId: string }>({
      type: 'workflow.run',
      workflowId,
    });
    await rig.client.waitFor((e) => e.type === 'approval.request', 10_000, false);
    await rig.client.ack({ type: 'turn.interrupt', threadId: r.threadId });
    expect((await rig.client.turnComplete(r.runId)).stopReason).toBe('interrupted');
    expect(shop.actions).toEqual([]);
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const before = requests();
    await rig.client.ack({ type: 'run.resume', runId: r.runId });
    const done = (await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === r.runId && e.stopReason !== 'interrupted',
    )) as Complete;
    expect(done).toMatchObject({ stopReason: 'end', workflow: { replayed: 4, modelRequests: 0 } });
    expect(requests()).toBe(before);
    expect(shop.cart.get('Blue mug')).toBe(3);
  });

  it('an action interrupted while running is not repeated blindly: without a model the run stops there', async () => {
    const { shop, rig, workflowId } = await recorded();
    await rig.store.settings.put({ ...(await rig.store.settings.get()), defaultModel: null });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let clicking = false;
    shop.beforeAction = (what) => {
      if (what !== 'click Add to cart') return undefined;
      clicking = true;
      return gate;
    };
    const r = await rig.client.ack<{ threadId: string; runId: string }>({
      type: 'workflow.run',
      workflowId,
    });
    await until(() => clicking);
    await rig.client.ack({ type: 'turn.interrupt', threadId: r.threadId });
    release();
    expect((await rig.client.turnComplete(r.runId)).stopReason).toBe('interrupted');
    await rig.client.ack({ type: 'run.resume', runId: r.runId });
    const done = (await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === r.runId && e.stopReason !== 'interrupted',
    )) as Complete;
    expect(done).toMatchObject({
      stopReason: 'error',
      error: { code: 'workflow_diverged' },
      workflow: { replayed: 3, diverged: { step: 4 } },
    });
    expect(done.workflow!.diverged!.reason).toContain('Step 4 failed');
  });

  it('an action the user marks done after a worker stop counts as replayed, not as left to do', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    await rig.store.settings.put({ ...(await rig.store.settings.get()), defaultModel: null });
    const before = requests();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let clicking = false;
    shop.beforeAction = (what) => {
      if (what !== 'click Add to cart') return undefined;
      clicking = true;
      return gate;
    };
    // The worker dies while the click runs: the click happens, its result is never committed.
    const b0 = await rig.reopen({
      faults: { at: () => (clicking ? new Promise<void>(() => undefined) : undefined) },
    });
    const r = await b0.client.ack<{ threadId: string; runId: string }>({
      type: 'workflow.run',
      workflowId,
    });
    await until(() => clicking);
    release();
    await until(() => shop.actions.includes('click Add to cart'));
    const b1 = await b0.reopen({ faults: { at: () => undefined } });
    for (let i = 0; (await b1.store.runs.get(r.runId))?.state !== 'paused_uncertain'; i++) {
      if (i > 200) throw new Error('the run did not pause as uncertain');
      await new Promise((res) => setTimeout(res, 10));
    }
    await b1.client.ack({ type: 'run.resolveUncertain', runId: r.runId, resolution: 'mark_done' });
    const done = (await b1.client.waitFor(
      (e) =>
        e.type === 'turn.complete' && e.runId === r.runId && e.stopReason !== 'paused_uncertain',
    )) as Complete;
    expect(done).toMatchObject({
      stopReason: 'end',
      workflow: { steps: 4, replayed: 4, modelRequests: 0 },
    });
    expect(shop.actions.filter((a) => a === 'click Add to cart')).toHaveLength(1);
    expect(requests()).toBe(before);
  });

  it('a worker stop in the middle of a replay resumes in the next worker', async () => {
    const { shop, rig, workflowId, requests } = await recorded();
    const before = requests();
    let commits = 0;
    // The worker dies before the 4th replay commit (after the first steps ran).
    const b0 = await rig.reopen({
      faults: {
        at: (name) =>
          name === 'tx:replay_step:before' && ++commits === 4
            ? new Promise<void>(() => undefined)
            : undefined,
      },
    });
    const r = await b0.client.ack<{ runId: string }>({ type: 'workflow.run', workflowId });
    await until(() => commits >= 4);
    expect(shop.actions.length).toBeGreaterThan(0);
    expect(shop.actions.length).toBeLessThan(4);
    const b1 = await b0.reopen({ faults: { at: () => undefined } });
    const complete = await b1.client.turnComplete(r.runId);
    expect(complete).toMatchObject({
      stopReason: 'end',
      workflow: { steps: 4, replayed: 4, modelRequests: 0 },
    });
    expect(shop.actions).toEqual([
      'type Search products blue mug',
      'click Blue mug',
      'type Quantity 3',
      'click Add to cart',
    ]);
    expect(requests()).toBe(before);
  });
});

describe('workflow.update / delete', () => {
  it('renames, changes input defaults and schedules; refuses bad schedules and unknown inputs', async () => {
    const { rig, workflowId } = await recorded();
    await rig.client.ack({
      type: 'workflow.update',
      workflowId,
      patch: {
        name: 'Mugs',
        inputs: [{ name: 'quantity', default: '5' }],
        schedule: { everyMinutes: 60 },
      },
    });
    const meta = (await listed(rig, (ws) => ws[0]?.name === 'Mugs'))[0];
    expect(meta).toMatchObject({
      name: 'Mugs',
      schedule: { everyMinutes: 60 },
      inputs: [
        { name: 'search_products', default: 'blue mug' },
        { name: 'quantity', default: '5' },
      ],
    });
    expect(
      await rig.client.send({
        type: 'workflow.update',
        workflowId,
        patch: { schedule: { everyMinutes: 5 } },
      }),
    ).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    expect(
      await rig.client.send({
        type: 'workflow.update',
        workflowId,
        patch: { schedule: { dailyAt: '25:00' } },
      }),
    ).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    expect(
      await rig.client.send({
        type: 'workflow.update',
        workflowId,
        patch: { inputs: [{ name: 'zz' }] },
      }),
    ).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    await rig.client.ack({
      type: 'workflow.update',
      workflowId,
      patch: { schedule: { dailyAt: '07:30' } },
    });
    await rig.client.ack({ type: 'workflow.delete', workflowId });
    await listed(rig, (ws) => ws.length === 0);
    expect(await rig.client.send({ type: 'workflow.delete', workflowId })).toMatchObject({
      type: 'command.reject',
      code: 'not_found',
    });
  });
});

describe('the run machine table (RUN_TRANSITIONS) lists the replay runner', () => {
  /** The commits of workflow-step.ts and ops-workflows.ts, by the name the table gives them. */
  const BY: Record<string, string> = {
    workflow_run: 'runWorkflow',
    replay_step: 'decideReplay',
    replay_done: 'decideReplay',
    replay_diverged: 'decideReplay',
  };

  /**
   * Records every run state change (and the hand-over to the model, which keeps the state) made
   * inside a workflow commit, with that commit's name (the engine's fault boundaries say which
   * commit is open; one run at a time here).
   */
  async function observed(rig: Rig) {
    const edges = new Set<string>();
    let tx: string | null = null;
    const b = await rig.reopen({
      faults: {
        at: (name) => {
          const m = /^tx:(.+):(before|after)$/.exec(name);
          if (m) tx = m[2] === 'before' ? m[1] : null;
          return undefined;
        },
      },
    });
    const runs = b.store.runs;
    const add = runs.add.bind(runs);
    const update = runs.update.bind(runs);
    runs.add = async (r) => {
      // A scheduled fire that finds its thread busy is queued by queueFire inside the same commit.
      const by = tx === 'workflow_run' && r.state === 'queued' ? 'queueFire' : tx && BY[tx];
      if (by) edges.add(`new|${r.state}|${by}`);
      return add(r);
    };
    runs.update = (runId, mutate, now) =>
      update(
        runId,
        (r) => {
          const from = r.state;
          const mode = r.workflow?.mode;
          mutate(r);
          if (tx && BY[tx] && (r.state !== from || r.workflow?.mode !== mode))
            edges.add(`${from}|${r.state}|${BY[tx]}`);
        },
        now,
      );
    return { b, edges };
  }

  it('every state change the replay makes is an edge of the table, and each replay edge is reached', async () => {
    const { RUN_TRANSITIONS } = await import('../../../src/engine/run/run-transitions');
    const seen = new Set<string>();
    // Replayed to the end; the product gone with a model (hand-over) and without (a stop).
    {
      const { shop, rig, workflowId } = await recorded({
        extraScript: [{ text: 'The blue mug is gone.' }],
      });
      const { b, edges } = await observed(rig);
      await runWorkflow(b, { workflowId });
      shop.reset();
      const all = shop.products;
      shop.products = all.filter((p) => p.name !== 'Blue mug');
      expect((await runWorkflow(b, { workflowId })).complete.workflow?.diverged).toBeDefined();
      const stop = await runWorkflow(b, { workflowId, onDivergence: 'stop' });
      expect(stop.complete.stopReason).toBe('error');
      // A scheduled fire while the workflow's thread waits for an approval: queued behind it.
      shop.reset();
      shop.products = all;
      await b.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'ask' });
      const first = await b.client.ack<{ threadId: string; runId: string }>({
        type: 'workflow.run',
        workflowId,
        trigger: 'schedule',
      });
      const asked = (await b.client.waitFor(
        (e) => e.type === 'approval.request' && e.runId === first.runId,
        10_000,
        false,
      )) as Extract<AgentEvent, { type: 'approval.request' }>;
      const second = await b.client.ack<{ runId: string; queued?: boolean }>({
        type: 'workflow.run',
        workflowId,
        trigger: 'schedule',
      });
      expect(second.queued).toBe(true);
      await b.client.ack({
        type: 'approval.response',
        approvalId: asked.approvalId,
        decision: 'allow_site',
      });
      expect((await b.client.turnComplete(second.runId)).workflow?.replayed).toBe(4);
      for (const e of edges) seen.add(e);
    }
    const listed = new Set(RUN_TRANSITIONS.map((t) => `${t.from}|${t.to}|${t.by}`));
    for (const e of seen) expect([e, listed.has(e)]).toEqual([e, true]);
    const replayEdges = [...listed].filter((e) => Object.values(BY).some((by) => e.endsWith(by)));
    expect(replayEdges.length).toBeGreaterThanOrEqual(5);
    for (const e of replayEdges) expect([e, seen.has(e)]).toEqual([e, true]);
  });
});
