// @vitest-environment happy-dom
import { options, type VNode } from 'preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { AssistantMessage } from '../../../sidepanel/components/AssistantMessage';
import { UserMessage } from '../../../sidepanel/components/UserMessage';
import { MessageList } from '../../../sidepanel/components/MessageList';
import { assistant, snapshot, user } from './helpers/fixtures';
import { mountPanel, type Mounted } from './helpers/mount';

/** Count renders per component type and item id through Preact's public `diffed` hook. */
function countRenders() {
  const counts = new Map<string, number>();
  const prev = options.diffed;
  options.diffed = (vnode: VNode) => {
    const type = vnode.type as unknown;
    const name =
      type === AssistantMessage
        ? 'assistant'
        : type === UserMessage
          ? 'user'
          : type === MessageList
            ? 'list'
            : null;
    if (name) {
      const id = (vnode.props as { item?: { id: string } }).item?.id ?? '';
      const key = `${name}:${id}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    prev?.(vnode);
  };
  return {
    counts,
    reset: () => counts.clear(),
    restore: () => {
      options.diffed = prev;
    },
  };
}

describe('streaming', () => {
  let m: Mounted;
  beforeEach(async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [
          user('u1', 'question one'),
          assistant('a1', 'answer **one**'),
          user('u2', 'question two'),
        ]),
      ],
      open: 't1',
    });
    await m.emit(
      { type: 'turn.start', threadId: 't1', turnId: 'turn-2', runId: 'run-2' },
      { type: 'run.updated', threadId: 't1', runId: 'run-2', state: 'streaming_model' },
      {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn-2',
        item: assistant('a2', '', { streaming: true }),
      },
    );
  });
  afterEach(() => m.unmount());

  it('a delta re-renders only the streaming message', async () => {
    const spy = countRenders();
    const others = [
      ...m.container.querySelectorAll(
        '[data-item-id="u1"], [data-item-id="a1"], [data-item-id="u2"]',
      ),
    ];
    const before = others.map((el) => el.innerHTML);
    const mutated = new Set<Node>();
    const observer = new MutationObserver((records) => {
      for (const r of records) mutated.add(r.target);
    });
    observer.observe(m.container, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
    try {
      await m.emit({ type: 'item.delta', threadId: 't1', itemId: 'a2', delta: { text: 'Hello ' } });
      await m.emit({
        type: 'item.delta',
        threadId: 't1',
        itemId: 'a2',
        delta: { text: '**world**' },
      });
    } finally {
      spy.restore();
    }
    observer.disconnect();

    const streaming = m.container.querySelector('[data-item-id="a2"]')!;
    expect(streaming.querySelector('strong')?.textContent).toBe('world');
    expect(streaming.getAttribute('aria-busy')).toBe('true');
    expect(spy.counts.get('assistant:a2')).toBeGreaterThanOrEqual(1);
    expect(spy.counts.get('assistant:a1') ?? 0).toBe(0);
    expect(spy.counts.get('user:u1') ?? 0).toBe(0);
    expect(spy.counts.get('list:') ?? 0).toBe(0); // the thread itself did not re-render
    expect(others.map((el) => el.innerHTML)).toEqual(before);
    for (const node of mutated) expect(streaming.contains(node) || node === streaming).toBe(true);
  });

  it('completing the item replaces the live text and clears the busy state', async () => {
    await m.emit({ type: 'item.delta', threadId: 't1', itemId: 'a2', delta: { text: 'partial' } });
    await m.emit({ type: 'item.complete', threadId: 't1', item: assistant('a2', 'final text') });
    const el = m.container.querySelector('[data-item-id="a2"]')!;
    expect(el.textContent).toContain('final text');
    expect(el.getAttribute('aria-busy')).toBeNull();
  });

  it('collapses thinking in a details element', async () => {
    await m.emit({
      type: 'item.delta',
      threadId: 't1',
      itemId: 'a2',
      delta: { thinking: 'Let me look at the page.' },
    });
    const details = m.container.querySelector(
      '[data-item-id="a2"] details.thinking',
    ) as HTMLDetailsElement;
    expect(details).not.toBeNull();
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')?.textContent).toBe('Thinking…');
    expect(details.textContent).toContain('Let me look at the page.');
  });

  it('a discarded attempt disappears', async () => {
    await m.emit({ type: 'item.delta', threadId: 't1', itemId: 'a2', delta: { text: 'oops' } });
    await m.emit({ type: 'item.discarded', threadId: 't1', itemId: 'a2' });
    expect(m.container.querySelector('[data-item-id="a2"]')).toBeNull();
  });

  it('adopts a stream it never saw start (subscribed mid-stream)', async () => {
    await m.emit({
      type: 'item.delta',
      threadId: 't1',
      itemId: 'a9',
      delta: { text: 'mid-stream' },
    });
    expect(m.container.querySelector('[data-item-id="a9"]')?.textContent).toContain('mid-stream');
  });

  it('shows stop-reason warnings for cut-off replies', async () => {
    await m.emit({
      type: 'item.complete',
      threadId: 't1',
      item: assistant('a2', 'long…', { providerStopReason: 'max_tokens' }),
    });
    const warn = m.container.querySelector('[data-item-id="a2"] .stop-warning');
    expect(warn?.textContent).toContain('may be incomplete');
    await m.emit({
      type: 'item.complete',
      threadId: 't1',
      item: assistant('a2', 'no', { providerStopReason: 'refusal' }),
    });
    expect(m.container.querySelector('[data-item-id="a2"] .stop-warning')?.textContent).toContain(
      'declined',
    );
  });

  it('shows per-turn and per-thread usage with cost', async () => {
    await m.emit({
      type: 'token.usage',
      threadId: 't1',
      runId: 'run-2',
      usage: { inputTokens: 1200, outputTokens: 80 },
      turnUsage: { inputTokens: 1200, outputTokens: 80 },
      turnCostUsd: 0.0042,
      threadUsage: { inputTokens: 5000, outputTokens: 900 },
      threadCostUsd: 0.031,
    });
    const turn = [...m.container.querySelectorAll('.turn-usage')].pop()!;
    expect(turn.textContent).toBe('1.2k in · 80 out · $0.0042');
    expect(m.container.querySelector('.thread-usage')?.textContent).toBe(
      '5.0k in · 900 out · $0.031',
    );
  });

  it('renders markdown safely with copy buttons on code blocks', async () => {
    await m.emit({
      type: 'item.complete',
      threadId: 't1',
      item: assistant(
        'a2',
        'Run:\n\n```sh\nnpm test\n```\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>',
      ),
    });
    const el = m.container.querySelector('[data-item-id="a2"]')!;
    expect(el.querySelector('.code-block button.copy-code')).not.toBeNull();
    expect(el.querySelector('a')?.getAttribute('href')).toBeNull();
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('[onerror]')).toBeNull();
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>'); // shown as text, not parsed
  });
});
