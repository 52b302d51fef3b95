// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { assistant, meta, snapshot, user } from './helpers/fixtures';
import { byText, click, mountPanel, q, typeInto, type Mounted } from './helpers/mount';

describe('threads', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  async function withThreads() {
    m = await mountPanel({
      threads: [
        meta('t1', { title: 'Flight search', updatedAt: 3 }),
        meta('t2', { title: 'Grocery order', updatedAt: 2, runState: 'executing_tool' }),
        meta('t3', { title: 'Tax forms', updatedAt: 1 }),
      ],
      snapshots: [],
    });
    await click(q(m.container, '[data-action="threads"]'));
  }

  it('lists threads newest first with their run state, and searches titles', async () => {
    await withThreads();
    const titles = () =>
      [...m.container.querySelectorAll('.thread-title')].map((e) => e.textContent);
    expect(titles()).toEqual(['Flight search', 'Grocery order', 'Tax forms']);
    expect(q(m.container, '[data-thread-id="t2"]').textContent).toContain('Running');
    await typeInto(q(m.container, '#thread-search'), 'GROC');
    expect(titles()).toEqual(['Grocery order']);
    await typeInto(q(m.container, '#thread-search'), 'zzz');
    expect(m.container.querySelector('.empty-list')?.textContent).toBe('No thread matches.');
  });

  it('opens a thread and subscribes to it', async () => {
    await withThreads();
    await click(q(m.container, '[data-thread-id="t3"] .thread-open'));
    expect(m.port().last('thread.subscribe')).toMatchObject({ threadId: 't3' });
    expect(m.container.querySelector('.loading')?.textContent).toContain('Loading');
    await m.emit({
      type: 'thread.snapshot',
      snapshot: snapshot('t3', [user('u1', 'file my taxes')]),
    });
    expect(q(m.container, '[data-item-id="u1"]').textContent).toContain('file my taxes');
    expect(q(m.container, '.app-header h1').textContent).toBe('Thread t3');
  });

  it('deletes a thread after confirmation', async () => {
    await withThreads();
    await click(q(m.container, '[data-thread-id="t1"] [data-action="delete"]'));
    expect(m.port().ops('thread.delete')).toHaveLength(0);
    await click(q(m.container, '[data-thread-id="t1"] [data-action="confirm-delete"]'));
    const op = m.port().last('thread.delete');
    expect(op).toMatchObject({ threadId: 't1' });
    m.port().ack(op);
    await m.emit({ type: 'thread.deleted', threadId: 't1' });
    expect(m.container.querySelector('[data-thread-id="t1"]')).toBeNull();
  });

  it('new chat goes back to an empty composer; the thread is created with the first message', async () => {
    await withThreads();
    await click(byText(m.container, '.threads-toolbar button', 'New chat'));
    expect(m.container.querySelector('.empty-state')).not.toBeNull();
    expect(m.panel.ui.get().selectedThreadId).toBeNull();
  });

  it('forks from any message and opens the new thread', async () => {
    m = await mountPanel({
      snapshots: [snapshot('t1', [user('u1', 'a'), assistant('a1', 'b'), user('u2', 'c')])],
      open: 't1',
    });
    await click(
      q(m.container, '[data-item-id="a1"]').closest('.row')!.querySelector('[data-action="fork"]'),
    );
    const op = m.port().last('thread.fork');
    expect(op).toMatchObject({ threadId: 't1', nodeId: 'a1' });
    m.port().ack(op, { threadId: 't9' });
    await m.flush();
    expect(m.panel.ui.get().selectedThreadId).toBe('t9');
    expect(m.port().last('thread.subscribe')).toMatchObject({ threadId: 't9' });
  });

  it('switches branches where history forks', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot(
          't1',
          [user('u1', 'a'), assistant('a1', 'b'), user('u2b', 'edited'), assistant('a2b', 'reply')],
          {
            branches: [
              {
                parentId: 'a1',
                childIds: ['u2a', 'u2b', 'u2c'],
                selected: 'u2b',
                leafIds: ['la', 'a2b', 'lc'],
              },
            ],
          },
        ),
      ],
      open: 't1',
    });
    const nav = q(m.container, '.branch-switcher');
    expect(nav.closest('.row')?.querySelector('[data-item-id="u2b"]')).not.toBeNull();
    expect(nav.textContent).toContain('2 / 3');
    await click(q(nav, 'button[aria-label="Previous version"]'));
    expect(m.port().last('thread.selectBranch')).toMatchObject({ threadId: 't1', leafId: 'la' });
    await click(q(nav, 'button[aria-label="Next version"]'));
    expect(m.port().last('thread.selectBranch')).toMatchObject({ leafId: 'lc' });
  });

  it('edit & resend submits the new text under the same parent', async () => {
    m = await mountPanel({
      snapshots: [snapshot('t1', [user('u1', 'a'), assistant('a1', 'b'), user('u2', 'old text')])],
      open: 't1',
    });
    const row = q(m.container, '[data-item-id="u2"]').closest('.row')!;
    await click(row.querySelector('[data-action="edit"]'));
    await typeInto(q(row, 'textarea'), 'new text');
    await click(byText(row, 'button', 'Resend'));
    expect(m.port().last('turn.submit')).toMatchObject({
      threadId: 't1',
      parentNodeId: 'a1',
      input: { text: 'new text' },
    });
    // The first message has no parent node: no edit there.
    expect(
      q(m.container, '[data-item-id="u1"]').closest('.row')!.querySelector('[data-action="edit"]'),
    ).toBeNull();
  });
});

describe('run banner', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  const withRun = async (
    state: 'interrupted' | 'budget_paused' | 'paused_uncertain' | 'completed',
  ) => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [user('u1', 'x')], { run: { runId: 'run-1', turnId: 'turn-1', state } }),
      ],
      open: 't1',
    });
    return m.container.querySelector('.run-banner');
  };

  it('interrupted → Continue sends run.resume', async () => {
    const banner = (await withRun('interrupted'))!;
    expect(banner.textContent).toContain('interrupted');
    await click(byText(banner, 'button', 'Continue'));
    expect(m.port().last('run.resume')).toMatchObject({ runId: 'run-1' });
  });

  it('budget_paused → Continue', async () => {
    const banner = (await withRun('budget_paused'))!;
    expect(banner.textContent).toContain('token budget');
    await click(byText(banner, 'button', 'Continue'));
    expect(m.port().last('run.resume')).toMatchObject({ runId: 'run-1' });
  });

  it.each([
    ['Retry', 'retry'],
    ['Mark done', 'mark_done'],
    ['Fail', 'fail'],
  ])('paused_uncertain → %s sends run.resolveUncertain %s', async (label, resolution) => {
    const banner = (await withRun('paused_uncertain'))!;
    await click(byText(banner, 'button', label));
    expect(m.port().last('run.resolveUncertain')).toMatchObject({ runId: 'run-1', resolution });
  });

  it('no banner for a finished run', async () => {
    expect(await withRun('completed')).toBeNull();
  });

  it('shows the error of a failed turn', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [user('u1', 'x')], {
          run: { runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' },
        }),
      ],
      open: 't1',
    });
    await m.emit({
      type: 'turn.complete',
      threadId: 't1',
      turnId: 'turn-1',
      runId: 'run-1',
      stopReason: 'error',
      error: { code: 'provider_error', message: 'The provider returned 401: check your API key.' },
    });
    expect(q(m.container, '.turn-error').textContent).toContain('401');
  });
});
