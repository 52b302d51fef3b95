// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import {
  approvalRequest,
  assistant,
  snapshot,
  toolCall,
  toolResult,
  user,
} from './helpers/fixtures';
import { byText, click, mountPanel, press, q, type Mounted } from './helpers/mount';

const SHOT =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function runningThread(): Promise<Mounted> {
  const m = await mountPanel({
    snapshots: [
      snapshot(
        't1',
        [user('u1', 'buy it'), assistant('a1', '', { providerStopReason: 'tool_use' })],
        {
          run: { runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' },
        },
      ),
    ],
    open: 't1',
  });
  return m;
}

const card = (m: Mounted, id = 'c1') =>
  m.container.querySelector(`.tool-card[data-item-id="${id}"]`) as HTMLElement;

describe('tool cards', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('walks start → approval_required → executing (progress) → result, with expandable details', async () => {
    m = await runningThread();
    await m.emit({
      type: 'item.start',
      threadId: 't1',
      turnId: 'turn-1',
      item: toolCall('c1', 'start', { params: undefined }),
    });
    expect(card(m).dataset.state).toBe('start');
    expect(card(m).textContent).toContain('Preparing…');
    expect(card(m).querySelector('details')).toBeNull(); // nothing to expand yet

    await m.emit({
      type: 'item.updated',
      threadId: 't1',
      item: toolCall('c1', 'approval_required'),
    });
    expect(card(m).textContent).toContain('Needs your approval');

    await m.emit({ type: 'item.updated', threadId: 't1', item: toolCall('c1', 'executing') });
    await m.emit({
      type: 'item.delta',
      threadId: 't1',
      itemId: 'c1',
      delta: { toolProgress: 'Scrolling into view…' },
    });
    expect(card(m).querySelector('.tool-progress')?.textContent).toBe('Scrolling into view…');
    await m.emit({
      type: 'item.delta',
      threadId: 't1',
      itemId: 'c1',
      delta: { toolProgress: 'Clicking…' },
    });
    expect(card(m).querySelector('.tool-progress')?.textContent).toBe('Clicking…');

    await m.emit(
      { type: 'item.updated', threadId: 't1', item: toolCall('c1', 'result') },
      {
        type: 'item.complete',
        threadId: 't1',
        item: toolResult('r1', 'tc-c1', {
          details: {
            screenshot: SHOT,
            highlight: {
              role: 'button',
              name: 'Add to cart',
              x: 10,
              y: 20,
              width: 100,
              height: 30,
            },
            viewport: { width: 1000, height: 800 },
          },
        }),
      },
    );
    expect(card(m).dataset.state).toBe('result');
    expect(card(m).textContent).toContain('Done');
    expect(card(m).querySelector('.tool-progress')).toBeNull();
    expect(m.container.querySelector('[data-item-id="r1"]')).toBeNull(); // folded into the card

    const summary = q(card(m), 'summary');
    const details = q<HTMLDetailsElement>(card(m), 'details');
    details.open = true;
    details.dispatchEvent(new Event('toggle'));
    await m.flush();
    expect(summary.textContent).toContain('Click');
    expect(card(m).querySelector('.tool-body')?.textContent).toContain('"ref": "e41"');
    expect(card(m).querySelector('.tool-body')?.textContent).toContain('Clicked “Add to cart”.');
    expect(card(m).querySelector('.tool-highlight')?.textContent).toContain('button “Add to cart”');
    expect(card(m).querySelector<HTMLImageElement>('.tool-shot img')?.getAttribute('src')).toBe(
      SHOT,
    );
    expect(card(m).querySelector<HTMLElement>('.shot-highlight')?.style.left).toBe('1%');
  });

  it('shows the terminal states rejected and invalid', async () => {
    m = await runningThread();
    await m.emit(
      { type: 'item.start', threadId: 't1', turnId: 'turn-1', item: toolCall('c1', 'rejected') },
      {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn-1',
        item: toolCall('c2', 'invalid', { params: undefined }),
      },
    );
    expect(card(m, 'c1').textContent).toContain('Rejected');
    expect(card(m, 'c1').querySelector('details')).not.toBeNull(); // its parameters stay inspectable
    expect(card(m, 'c2').textContent).toContain('Invalidated');
    expect(card(m, 'c2').querySelector('details')).toBeNull(); // interrupted before it had any
  });

  it('marks a failed result', async () => {
    m = await runningThread();
    await m.emit(
      { type: 'item.start', threadId: 't1', turnId: 'turn-1', item: toolCall('c1', 'result') },
      {
        type: 'item.complete',
        threadId: 't1',
        item: toolResult('r1', 'tc-c1', {
          ok: false,
          content: [{ type: 'text', text: 'stale ref' }],
        }),
      },
    );
    expect(card(m).classList.contains('failed')).toBe(true);
    expect(card(m).textContent).toContain('Failed');
  });

  it('shows no card for internal tools; the todo card follows todo.updated', async () => {
    m = await runningThread();
    await m.emit(
      {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn-1',
        item: toolCall('td', 'result', { name: 'todo', label: 'Todo', visibility: 'internal' }),
      },
      {
        type: 'todo.updated',
        threadId: 't1',
        todos: [
          { id: '1', text: 'Open the shop', status: 'done' },
          { id: '2', text: 'Add to cart', status: 'in_progress' },
          { id: '3', text: 'Check out', status: 'pending' },
        ],
      },
    );
    expect(m.container.querySelector('.tool-card[data-item-id="td"]')).toBeNull();
    const todo = q(m.container, '.todo-card');
    expect(todo.textContent).toContain('1 of 3 done');
    expect([...todo.querySelectorAll('li')].map((li) => li.className)).toEqual([
      'todo done',
      'todo in_progress',
      'todo pending',
    ]);
  });
});

describe('approval card', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  async function withApproval(over = {}) {
    m = await runningThread();
    await m.emit(
      {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn-1',
        item: toolCall('c1', 'approval_required'),
      },
      { type: 'run.updated', threadId: 't1', runId: 'run-1', state: 'waiting_approval' },
      approvalRequest('t1', over),
    );
    return q(m.container, '.approval-card');
  }

  it('shows full parameters, the target site and the four decisions, and takes focus', async () => {
    const el = await withApproval({
      target: {
        origin: 'https://shop.example',
        title: 'Shop — Cart',
        favIconUrl: 'https://shop.example/favicon.ico',
      },
    });
    expect(document.activeElement).toBe(el);
    expect(el.textContent).toContain('Allow “Click”?');
    expect(el.querySelector('.approval-origin')?.textContent).toBe('https://shop.example');
    expect(el.querySelector('.approval-page-title')?.textContent).toBe('Shop — Cart');
    expect(el.querySelector<HTMLImageElement>('img.favicon')?.getAttribute('src')).toBe(
      'https://shop.example/favicon.ico',
    );
    expect(el.querySelector('pre')?.textContent).toContain('"element": "Add to cart"');
    expect([...el.querySelectorAll('button')].map((b) => b.textContent)).toEqual([
      'Allow once',
      'Always allow on this site',
      'Deny',
      'Deny and stop',
    ]);
    const allowSite = byText(el, 'button', 'Always allow on this site');
    const hint = document.getElementById(allowSite.getAttribute('aria-describedby')!);
    expect(hint?.textContent).toContain('without asking again');
  });

  it.each([
    ['Allow once', 'allow_once'],
    ['Always allow on this site', 'allow_site'],
    ['Deny', 'deny'],
    ['Deny and stop', 'deny_stop'],
  ])('“%s” sends approval.response %s', async (label, decision) => {
    const el = await withApproval();
    await click(byText(el, 'button', label));
    const op = m.port().last('approval.response');
    expect(op).toMatchObject({ approvalId: 'ap-1', decision, clientId: 'panel-test' });
    // Buttons stay disabled until the engine answers; then the resolved event removes the card.
    expect(byText<HTMLButtonElement>(el, 'button', 'Allow once').disabled).toBe(true);
    m.port().ack(op);
    await m.emit({
      type: 'approval.resolved',
      threadId: 't1',
      approvalId: 'ap-1',
      decision: decision as 'deny',
    });
    expect(m.container.querySelector('.approval-card')).toBeNull();
  });

  it('Escape on the card denies', async () => {
    const el = await withApproval();
    await press(el, 'Escape');
    expect(m.port().last('approval.response')).toMatchObject({ decision: 'deny' });
  });

  it('only offers the options the engine allows', async () => {
    const el = await withApproval({ options: ['allow_once', 'deny'] });
    expect([...el.querySelectorAll('button')].map((b) => b.textContent)).toEqual([
      'Allow once',
      'Deny',
    ]);
  });

  it('drops a stale card when the engine says it was already resolved', async () => {
    const el = await withApproval();
    await click(byText(el, 'button', 'Deny'));
    m.port().reject(m.port().last('approval.response'), 'already_resolved');
    await m.flush();
    expect(m.container.querySelector('.approval-card')).toBeNull();
    expect(m.container.querySelector('.hint')?.textContent).toContain('already answered');
  });
});

describe('ask_user interaction', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  const ask = (payload: unknown) =>
    m.emit({
      type: 'interaction.request',
      threadId: 't1',
      runId: 'run-1',
      interactionId: 'ix-1',
      kind: 'ask_user',
      payload,
    });

  it('renders fields generically and answers with interaction.response', async () => {
    m = await runningThread();
    await ask({
      question: 'Which size?',
      fields: [
        { id: 'size', label: 'Size', type: 'choice', options: ['S', 'M', 'L'], required: true },
        { id: 'note', label: 'Note', type: 'text' },
        { id: 'gift', label: 'Gift wrap', type: 'confirm' },
      ],
    });
    const form = q(m.container, '.interaction-card');
    expect(form.textContent).toContain('Which size?');
    await click(byText(form, 'button', 'Send answer'));
    expect(form.querySelector('[role="alert"]')?.textContent).toContain('required');
    expect(m.port().ops('interaction.response')).toHaveLength(0);

    await click(form.querySelector('input[value="M"]'));
    await click(form.querySelector('input[type="checkbox"]'));
    await click(byText(form, 'button', 'Send answer'));
    expect(m.port().last('interaction.response')).toMatchObject({
      interactionId: 'ix-1',
      response: { answers: { size: 'M', note: '', gift: true } },
    });
  });

  it('falls back to a single free-text answer when fields are missing or malformed', async () => {
    m = await runningThread();
    await ask({ question: 'What is your order number?', fields: 'nope' });
    const form = q(m.container, '.interaction-card');
    const area = q<HTMLTextAreaElement>(form, 'textarea');
    expect(document.activeElement).toBe(area);
    area.value = 'A-123';
    area.dispatchEvent(new Event('input', { bubbles: true }));
    await m.flush();
    await press(area, 'Enter');
    expect(m.port().last('interaction.response').response).toEqual({ answer: 'A-123' });
  });

  it('can be dismissed', async () => {
    m = await runningThread();
    await ask(null);
    const form = q(m.container, '.interaction-card');
    expect(form.textContent).toContain('The agent has a question for you.');
    await click(byText(form, 'button', 'Skip'));
    expect(m.port().last('interaction.response').response).toEqual({ cancelled: true });
  });
});
