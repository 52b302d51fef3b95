// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { approvalRequest, assistant, snapshot, toolCall, user } from './helpers/fixtures';
import { mountPanel, q, type Mounted } from './helpers/mount';

/**
 * Issue 13: an action inside an embedded frame of another site is judged on the frame's site,
 * and the approval card names both — "in a frame of A, from B" — not the top page alone.
 */
describe('approval card for an action in a cross-origin frame', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('names the top page and the frame’s own site', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot(
          't1',
          [user('u1', 'pay'), assistant('a1', '', { providerStopReason: 'tool_use' })],
          { run: { runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' } },
        ),
      ],
      open: 't1',
    });
    await m.emit(
      {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn-1',
        item: toolCall('c1', 'approval_required'),
      },
      { type: 'run.updated', threadId: 't1', runId: 'run-1', state: 'waiting_approval' },
      approvalRequest('t1', {
        target: {
          tabId: 7,
          origin: 'https://pay.example',
          url: 'https://pay.example/card',
          topOrigin: 'https://shop.example',
          topUrl: 'https://shop.example/cart',
        },
      }),
    );
    const el = q(m.container, '.approval-card');
    expect(el.querySelector('.approval-origin')?.textContent).toBe(
      'in a frame of https://shop.example, from https://pay.example',
    );
  });
});
