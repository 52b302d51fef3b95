// @vitest-environment happy-dom
/** The Workflows view and "Save as workflow", against the scripted engine of the panel tests. */
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowMeta } from '../../../src/protocol';
import { click, mountPanel, typeInto, type Mounted } from './helpers/mount';
import { meta, snapshot } from './helpers/fixtures';

const WF: WorkflowMeta = {
  workflowId: 'wf_1',
  name: 'Reorder mugs',
  steps: 4,
  inputs: [
    { name: 'search_products', default: 'blue mug' },
    { name: 'quantity', default: '3' },
  ],
  schedule: null,
  summary: ['Type searchbox "Search products" with "blue mug"', 'Click link "Blue mug"'],
  lastRun: {
    threadId: 't9',
    runId: 'r9',
    at: 1,
    outcome: 'end',
    report: { steps: 4, replayed: 4, modelRequests: 0 },
  },
};

let m: Mounted | undefined;
afterEach(() => {
  m?.unmount();
  m = undefined;
});

describe('Workflows view', () => {
  it('lists workflows with steps, inputs and the last run; runs with edited inputs; schedules; deletes', async () => {
    m = await mountPanel();
    await m.emit({ type: 'workflows.updated', workflows: [WF] });
    await click(m.container.querySelector('[data-action="workflows"]'));
    const card = m.container.querySelector('[data-workflow-id="wf_1"]')!;
    expect(card.textContent).toContain('Reorder mugs');
    expect(card.textContent).toContain('4 steps');
    expect(card.textContent).toContain('Click link "Blue mug"');
    expect(card.textContent).toContain('4 of 4 steps replayed, 0 model requests');
    const inputs = card.querySelectorAll<HTMLInputElement>('.workflow-inputs input');
    expect([...inputs].map((i) => i.value)).toEqual(['blue mug', '3']);
    await typeInto(inputs[1], '5');
    await click(card.querySelector('[data-action="run-workflow"]'));
    const run = m.port().last('workflow.run');
    expect(run).toMatchObject({
      workflowId: 'wf_1',
      inputs: { search_products: 'blue mug', quantity: '5' },
    });
    m.port().ack(run as never, { threadId: 't2', turnId: 'u2', runId: 'r2' });
    await m.flush();
    expect(m.panel.ui.get()).toMatchObject({ view: 'chat', selectedThreadId: 't2' });

    await click(m.container.querySelector('[data-action="workflows"]'));
    const card2 = m.container.querySelector('[data-workflow-id="wf_1"]')!;
    const select = card2.querySelector<HTMLSelectElement>('.workflow-schedule select')!;
    select.value = 'daily';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await m.flush();
    await click(card2.querySelector('[data-action="save-schedule"]'));
    expect(m.port().last('workflow.update')).toMatchObject({
      workflowId: 'wf_1',
      patch: { schedule: { dailyAt: '08:00' } },
    });
    await click(card2.querySelector('button[aria-label="Delete"]'));
    await click(card2.querySelector('[data-action="confirm-delete-workflow"]'));
    expect(m.port().last('workflow.delete')).toMatchObject({ workflowId: 'wf_1' });
  });

  it("shows the last run's outcome (its stop reason) in words", async () => {
    m = await mountPanel();
    const last = WF.lastRun!;
    const cases: [NonNullable<WorkflowMeta['lastRun']>, string][] = [
      [last, 'Last run: done'],
      [
        { ...last, report: { ...last.report!, replayed: 1, diverged: { step: 2, reason: 'x' } } },
        "Last run: done with the model's help",
      ],
      [{ ...last, outcome: 'error' }, 'Last run: stopped'],
      [{ ...last, outcome: 'paused_uncertain' }, 'Last run: waiting for you'],
      [{ ...last, outcome: 'running' }, 'Last run: running'],
    ];
    await m.emit({ type: 'workflows.updated', workflows: [WF] });
    await click(m.container.querySelector('[data-action="workflows"]'));
    for (const [lastRun, text] of cases) {
      await m.emit({ type: 'workflows.updated', workflows: [{ ...WF, lastRun }] });
      await m.flush();
      expect(m.container.querySelector('.workflow-last-run')?.textContent).toContain(text);
    }
  });

  it('lists the earlier runs under the last one', async () => {
    m = await mountPanel();
    const last = WF.lastRun!;
    const older = { ...last, runId: 'r8', outcome: 'error' as const, report: undefined };
    await m.emit({
      type: 'workflows.updated',
      workflows: [{ ...WF, recentRuns: [last, older] }],
    });
    await click(m.container.querySelector('[data-action="workflows"]'));
    const runs = [...m.container.querySelectorAll('.workflow-runs li')].map((li) => li.textContent);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toContain('stopped');
    expect(m.container.querySelector('.workflow-runs')?.getAttribute('aria-label')).toBe(
      'Earlier runs',
    );
  });

  it('schedules "weekdays at 9:00" in the user\'s time zone and clears past runs', async () => {
    m = await mountPanel();
    await m.emit({ type: 'workflows.updated', workflows: [WF] });
    await click(m.container.querySelector('[data-action="workflows"]'));
    const card = m.container.querySelector('[data-workflow-id="wf_1"]')!;
    const select = card.querySelector<HTMLSelectElement>('.workflow-schedule select')!;
    select.value = 'weekly';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await m.flush();
    const boxes = [...card.querySelectorAll<HTMLInputElement>('.workflow-days input')];
    expect(boxes.map((b) => [b.dataset.day, b.checked])).toEqual([
      ['1', true],
      ['2', true],
      ['3', true],
      ['4', true],
      ['5', true],
      ['6', false],
      ['0', false],
    ]);
    expect(card.querySelector('.workflow-days')?.textContent).toBe('DaysMonTueWedThuFriSatSun');
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(card.querySelector('.workflow-zone')?.textContent).toBe(`In your time zone (${zone})`);
    await click(card.querySelector('[data-action="save-schedule"]'));
    expect(m.port().last('workflow.update')).toMatchObject({
      workflowId: 'wf_1',
      patch: { schedule: { days: [1, 2, 3, 4, 5], at: '09:00', timeZone: zone } },
    });
    // No day chosen: the panel says so and sends nothing.
    const sent = m.port().ops('workflow.update').length;
    for (const b of boxes.filter((x) => x.checked)) await click(b);
    await click(card.querySelector('[data-action="save-schedule"]'));
    expect(card.querySelector('.workflow-error')?.textContent).toBe('Choose at least one day.');
    expect(m.port().ops('workflow.update')).toHaveLength(sent);

    await click(card.querySelector('[data-action="clear-workflow-runs"]'));
    expect(m.port().last('workflow.clearRuns')).toMatchObject({ workflowId: 'wf_1' });
  });

  it('offers "Save as workflow" under a completed turn and shows the engine refusal', async () => {
    const snap = snapshot(
      't1',
      [{ kind: 'user_message', id: 'n1', createdAt: 1, text: 'Buy mugs' }],
      {
        run: { runId: 'r1', turnId: 'u1', state: 'completed', stopReason: 'end' },
      },
    );
    m = await mountPanel({
      snapshots: [snap],
      threads: [meta('t1', { title: 'Buy mugs' })],
      open: 't1',
    });
    await click(m.container.querySelector('[data-action="save-workflow"]'));
    await click(m.container.querySelector('[data-action="confirm-save-workflow"]'));
    const save = m.port().last('workflow.save');
    expect(save).toMatchObject({ threadId: 't1', turnId: 'u1', name: 'Buy mugs' });
    m.port().reject(
      save as never,
      'not_replayable',
      'The turn did not act on any page with a tool; there is nothing to replay.',
    );
    await m.flush();
    expect(m.container.querySelector('.save-workflow [role="alert"]')?.textContent).toContain(
      'nothing to replay',
    );
    await click(m.container.querySelector('[data-action="save-workflow"]'));
    await click(m.container.querySelector('[data-action="confirm-save-workflow"]'));
    m.port().ack(m.port().last('workflow.save') as never, { workflowId: 'wf_2' });
    await m.flush();
    expect(m.container.querySelector('.workflow-saved')?.textContent).toBe('Saved as a workflow.');
  });
});
