// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { composerAction } from '../../../sidepanel/state/keymap';
import { assistant, settings, snapshot, user } from './helpers/fixtures';
import { byText, click, mountPanel, press, q, typeInto, type Mounted } from './helpers/mount';

const input = (m: Mounted) => q<HTMLTextAreaElement>(m.container, '#composer-input');

async function idleThread(): Promise<Mounted> {
  return mountPanel({
    snapshots: [snapshot('t1', [user('u1', 'hi'), assistant('a1', 'hello')])],
    open: 't1',
  });
}

async function activeThread(): Promise<Mounted> {
  return mountPanel({
    snapshots: [
      snapshot('t1', [user('u1', 'hi')], {
        run: { runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' },
      }),
    ],
    open: 't1',
  });
}

describe('composer keymap', () => {
  const key = (
    k: string,
    mods: Partial<
      Record<'shiftKey' | 'altKey' | 'ctrlKey' | 'metaKey' | 'isComposing', boolean>
    > = {},
  ) => ({
    key: k,
    shiftKey: false,
    altKey: false,
    ctrlKey: false,
    metaKey: false,
    ...mods,
  });
  it('maps keys to actions', () => {
    expect(composerAction(key('Enter'), false)).toBe('send');
    expect(composerAction(key('Enter'), true)).toBe('send');
    expect(composerAction(key('Enter', { shiftKey: true }), true)).toBeNull();
    expect(composerAction(key('Enter', { shiftKey: true, altKey: true }), true)).toBe('enqueue');
    expect(composerAction(key('Escape'), true)).toBe('interrupt');
    expect(composerAction(key('Escape'), false)).toBeNull();
    expect(composerAction(key('Enter', { isComposing: true }), false)).toBeNull();
    expect(composerAction({ ...key('Enter'), keyCode: 229 }, false)).toBeNull();
  });
});

describe('composer', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('Enter on an idle thread sends turn.submit and clears the input once accepted', async () => {
    m = await idleThread();
    await typeInto(input(m), '  Find the cheapest flight  ');
    const ev = await press(input(m), 'Enter');
    expect(ev.defaultPrevented).toBe(true);
    const op = m.port().last('turn.submit');
    expect(op).toMatchObject({ threadId: 't1', input: { text: 'Find the cheapest flight' } });
    expect(input(m).value).toBe('');
    m.port().ack(op, { turnId: 'turn-2', runId: 'run-2' });
    await m.flush();
    expect(input(m).value).toBe('');
  });

  it('Shift+Enter is a newline, not a send', async () => {
    m = await idleThread();
    await typeInto(input(m), 'line one');
    const ev = await press(input(m), 'Enter', { shiftKey: true });
    expect(ev.defaultPrevented).toBe(false);
    expect(m.port().ops('turn.submit')).toHaveLength(0);
  });

  it('Enter during a run steers with the expected turn id', async () => {
    m = await activeThread();
    await typeInto(input(m), 'use the blue one');
    await press(input(m), 'Enter');
    expect(m.port().last('turn.steer')).toMatchObject({
      threadId: 't1',
      expectedTurnId: 'turn-1',
      input: { text: 'use the blue one' },
    });
    expect(m.port().ops('turn.submit')).toHaveLength(0);
  });

  it.each(['not_steerable', 'no_active_turn'] as const)(
    'a steer rejected with %s falls back to the queue with a hint',
    async (code) => {
      m = await activeThread();
      await typeInto(input(m), 'then do this');
      await press(input(m), 'Enter');
      m.port().reject(m.port().last('turn.steer'), code);
      await m.flush();
      expect(m.port().last('turn.enqueue')).toMatchObject({
        threadId: 't1',
        input: { text: 'then do this' },
      });
      m.port().ack(m.port().last('turn.enqueue'), { queueItemId: 'q1' });
      await m.flush();
      expect(q(m.container, '.hint').textContent).toContain('queued');
    },
  );

  it('Shift+Alt+Enter queues during a run', async () => {
    m = await activeThread();
    await typeInto(input(m), 'afterwards, summarize');
    await press(input(m), 'Enter', { shiftKey: true, altKey: true });
    expect(m.port().last('turn.enqueue')).toMatchObject({
      input: { text: 'afterwards, summarize' },
    });
    expect(m.port().ops('turn.steer')).toHaveLength(0);
  });

  it('Esc interrupts the running turn and shows Stopping… until the run settles', async () => {
    m = await activeThread();
    await press(input(m), 'Escape');
    expect(m.port().last('turn.interrupt')).toMatchObject({ threadId: 't1' });
    expect(q(m.container, '.stop-btn').textContent).toContain('Stopping…');
    await m.emit({ type: 'run.updated', threadId: 't1', runId: 'run-1', state: 'interrupted' });
    expect(m.container.querySelector('.stop-btn')).toBeNull();
  });

  it('Esc does nothing when idle', async () => {
    m = await idleThread();
    await press(input(m), 'Escape');
    expect(m.port().ops('turn.interrupt')).toHaveLength(0);
  });

  it('puts the text back when the engine rejects the message', async () => {
    m = await idleThread();
    await typeInto(input(m), 'please do it');
    await press(input(m), 'Enter');
    expect(input(m).value).toBe('');
    m.port().reject(m.port().last('turn.submit'), 'no_provider');
    await m.flush();
    expect(input(m).value).toBe('please do it');
    expect(q(m.container, '.hint.error').textContent).toContain('Settings');
    await click(byText(m.container, '.hint button', 'Open settings'));
    expect(m.container.querySelector('.settings-view')).not.toBeNull();
  });

  it('creates a thread for the first message of a new chat', async () => {
    m = await mountPanel();
    await typeInto(input(m), 'hello there');
    await press(input(m), 'Enter');
    const create = m.port().last('thread.create');
    m.port().ack(create, { threadId: 'new-1' });
    await m.flush();
    expect(m.port().last('turn.submit')).toMatchObject({
      threadId: 'new-1',
      input: { text: 'hello there' },
    });
    expect(m.panel.ui.get().selectedThreadId).toBe('new-1');
  });

  it('keeps what the user is typing across a reconnect', async () => {
    m = await idleThread();
    await typeInto(input(m), 'half-written thought');
    m.port().drop();
    await m.flush();
    expect(q(m.container, '.connection-banner').textContent).toBe('Reconnecting…');
    expect(input(m).value).toBe('half-written thought');
    m.timers.runAll();
    await m.emit({
      type: 'initialized',
      threads: [],
      snapshots: [snapshot('t1', [user('u1', 'hi')])],
      settings: settings(),
    });
    expect(m.container.querySelector('.connection-banner')).toBeNull();
    expect(input(m).value).toBe('half-written thought');
  });

  it('resends a message sent during an outage with the same submissionId', async () => {
    m = await idleThread();
    await typeInto(input(m), 'go');
    await press(input(m), 'Enter');
    const first = m.port().last('turn.submit');
    m.port().drop();
    await m.flush();
    m.timers.runAll();
    await m.flush();
    const again = m.port().last('turn.submit');
    expect(again.submissionId).toBe(first.submissionId);
    expect(m.port().sent[0].type).toBe('initialize');
  });

  it('attaches pasted images when the model has vision and sends them', async () => {
    m = await idleThread();
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    const paste = new Event('paste', { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(paste, 'clipboardData', { value: { files: [file] } });
    input(m).dispatchEvent(paste);
    // Reading the file is asynchronous: wait for the thumbnail (bounded), not a fixed delay.
    for (
      let i = 0;
      i < 100 && m.container.querySelectorAll('.composer-images img').length === 0;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 20));
      await m.flush();
    }
    expect(m.container.querySelectorAll('.composer-images img')).toHaveLength(1);
    await click(q(m.container, '.send-btn'));
    const op = m.port().last('turn.submit');
    expect(
      (op.input as { images: Array<{ mimeType: string; dataBase64: string }> }).images,
    ).toEqual([{ mimeType: 'image/png', dataBase64: 'iVBORw==' }]);
  });

  it('refuses images when the selected model has no vision', async () => {
    m = await mountPanel({
      settings: settings({
        providers: [
          {
            id: 'anthropic',
            kind: 'anthropic',
            hasApiKey: true,
            models: [{ id: 'claude-x', vision: false }],
          },
        ],
      }),
      snapshots: [snapshot('t1', [])],
      open: 't1',
    });
    const file = new File([new Uint8Array([1])], 'a.png', { type: 'image/png' });
    const paste = new Event('paste', { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(paste, 'clipboardData', { value: { files: [file] } });
    input(m).dispatchEvent(paste);
    await m.flush();
    expect(m.container.querySelectorAll('.composer-images img')).toHaveLength(0);
    expect(q(m.container, '.hint.error').textContent).toContain("can't read images");
  });
});

describe('queue', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  async function withQueue() {
    m = await activeThread();
    await m.emit({
      type: 'queue.updated',
      threadId: 't1',
      items: [
        { queueItemId: 'q1', input: { text: 'first queued' } },
        { queueItemId: 'q2', input: { text: 'second queued' } },
      ],
    });
    return q(m.container, '.queue');
  }

  it('lists queued messages above the input', async () => {
    const queue = await withQueue();
    expect(queue.textContent).toContain('Queued (2)');
    expect([...queue.querySelectorAll('.queue-text')].map((e) => e.textContent)).toEqual([
      'first queued',
      'second queued',
    ]);
  });

  it('edits an item with queue.update', async () => {
    const queue = await withQueue();
    await click(queue.querySelector('[data-queue-id="q2"] [data-action="edit"]'));
    const area = q<HTMLTextAreaElement>(queue, '[data-queue-id="q2"] textarea');
    expect(area.value).toBe('second queued');
    await typeInto(area, 'second, edited');
    await click(byText(queue, 'button', 'Save'));
    const op = m.port().last('queue.update');
    expect(op).toMatchObject({
      threadId: 't1',
      queueItemId: 'q2',
      input: { text: 'second, edited' },
    });
    m.port().ack(op);
    await m.emit({
      type: 'queue.updated',
      threadId: 't1',
      items: [
        { queueItemId: 'q1', input: { text: 'first queued' } },
        { queueItemId: 'q2', input: { text: 'second, edited' } },
      ],
    });
    expect(m.container.querySelector('.queue textarea')).toBeNull();
    expect(m.container.querySelector('[data-queue-id="q2"] .queue-text')?.textContent).toBe(
      'second, edited',
    );
  });

  it('removes an item with queue.remove', async () => {
    const queue = await withQueue();
    await click(queue.querySelector('[data-queue-id="q1"] [data-action="remove"]'));
    expect(m.port().last('queue.remove')).toMatchObject({ threadId: 't1', queueItemId: 'q1' });
    await m.emit({ type: 'queue.updated', threadId: 't1', items: [] });
    expect(m.container.querySelector('.queue')).toBeNull();
  });
});
