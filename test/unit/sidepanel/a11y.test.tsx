// @vitest-environment happy-dom
import axe from 'axe-core';
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import {
  approvalRequest,
  assistant,
  meta,
  settings,
  snapshot,
  toolCall,
  toolResult,
  user,
} from './helpers/fixtures';
import { click, mountPanel, q, type Mounted } from './helpers/mount';

/**
 * axe-core over the rendered panel. happy-dom has no layout, so rules that need geometry
 * (contrast, target size) cannot run here; the e2e suite covers those in Chromium.
 */
async function violations(root: Element) {
  const result = await axe.run(root, {
    rules: { 'color-contrast': { enabled: false }, 'target-size': { enabled: false } },
    resultTypes: ['violations'],
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
}

describe('accessibility (axe-core)', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('a busy conversation has no serious or critical violations', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot(
          't1',
          [
            user('u1', 'Add the blue shirt to my cart'),
            assistant('a1', 'Looking at the page.\n\n```js\nconst x = 1;\n```', {
              thinking: 'plan',
              providerStopReason: 'tool_use',
            }),
            toolCall('c1', 'result'),
            toolResult('r1', 'tc-c1'),
            toolCall('c2', 'approval_required', { toolCallId: 'tc-c1b' }),
          ],
          {
            run: {
              runId: 'run-1',
              turnId: 'turn-1',
              state: 'waiting_approval',
              pendingApproval: approvalRequest('t1'),
            },
            queue: [{ queueItemId: 'q1', input: { text: 'then check out' } }],
            todos: [{ id: 'd', text: 'Find shirt', status: 'in_progress' }],
          },
        ),
      ],
      open: 't1',
    });
    await m.emit({
      type: 'interaction.request',
      threadId: 't1',
      runId: 'run-1',
      interactionId: 'ix',
      kind: 'ask_user',
      payload: {
        question: 'Size?',
        fields: [{ id: 's', label: 'Size', type: 'choice', options: ['S', 'M'] }],
      },
    });
    expect(await violations(m.container)).toEqual([]);
  });

  it('threads and settings screens have no serious or critical violations', async () => {
    m = await mountPanel({
      threads: [
        meta('t1', { title: 'One' }),
        meta('t2', { title: 'Two', runState: 'interrupted' }),
      ],
      settings: settings({
        siteRules: [{ origin: 'https://a.example', rule: 'allow', updatedAt: 1 }],
        mcpServers: [
          { id: 'docs', url: 'https://mcp.example/mcp', enabled: true, hasToken: false },
        ],
      }),
    });
    await click(q(m.container, '[data-action="threads"]'));
    expect(await violations(m.container)).toEqual([]);
    await click(q(m.container, '[data-action="settings"]'));
    expect(await violations(m.container)).toEqual([]);
  });

  it('every button has an accessible name', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [user('u1', 'x'), assistant('a1', 'y')], {
          run: { runId: 'r', turnId: 't', state: 'streaming_model' },
        }),
      ],
      open: 't1',
    });
    for (const b of m.container.querySelectorAll('button')) {
      expect(b.getAttribute('aria-label') || b.textContent?.trim(), b.outerHTML).toBeTruthy();
    }
  });
});
