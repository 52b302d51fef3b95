// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { INITIAL_ROWS } from '../../../sidepanel/components/MessageList';
import { assistant, snapshot, user } from './helpers/fixtures';
import { click, mountPanel, q, type Mounted } from './helpers/mount';

describe('a long thread', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('opens with its newest rows, loads earlier ones on demand, and keeps new rows', async () => {
    const items = Array.from({ length: 200 }, (_, i) => [
      user(`u${i}`, `question ${i}`),
      assistant(`a${i}`, `answer ${i}`),
    ]).flat();
    m = await mountPanel({ snapshots: [snapshot('t1', items)], open: 't1' });
    const rendered = () => m.container.querySelectorAll('.messages [data-item-id]').length;
    expect(rendered()).toBe(INITIAL_ROWS);
    // The newest rows are the ones shown.
    expect(m.container.querySelector('[data-item-id="a199"]')).not.toBeNull();
    expect(m.container.querySelector('[data-item-id="u0"]')).toBeNull();
    const loader = q(m.container, '.earlier-loader');
    expect(loader.textContent).toContain(String(400 - INITIAL_ROWS));
    await click(loader);
    expect(rendered()).toBe(INITIAL_ROWS + 150);
    await click(q(m.container, '.earlier-loader'));
    expect(rendered()).toBe(400);
    expect(m.container.querySelector('.earlier-loader')).toBeNull();
    expect(m.container.querySelector('[data-item-id="u0"]')).not.toBeNull();
  });
});
