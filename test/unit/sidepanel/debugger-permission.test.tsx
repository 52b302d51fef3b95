// @vitest-environment happy-dom
/**
 * The approval card asks Chrome for the optional `debugger` permission (issue 15): only when the
 * user allows an L2 action, synchronously inside the click (Chrome honours the request only in a
 * user gesture, which an `await` would end), and the decision reaches the engine only after
 * Chrome answered, whatever it answered.
 */
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import { approvalRequest, assistant, snapshot, toolCall, user } from './helpers/fixtures';
import { byText, flush, mountPanel, q, type Mounted } from './helpers/mount';

interface Request {
  permissions: string[];
  /** What had been sent to the engine when the request was made. */
  responsesBefore: number;
  answer: (granted: boolean) => void;
}

let requests: Request[] = [];
let m: Mounted;

beforeEach(() => {
  requests = [];
  (globalThis as { chrome?: unknown }).chrome = {
    permissions: {
      request: ({ permissions }: { permissions: string[] }) =>
        new Promise<boolean>((answer) => {
          requests.push({
            permissions,
            responsesBefore: m.port().ops('approval.response').length,
            answer,
          });
        }),
    },
  };
});

afterEach(() => {
  m.unmount();
  delete (globalThis as { chrome?: unknown }).chrome;
});

async function card(level: 'L1' | 'L2', name = level === 'L2' ? 'browser_mouse' : 'browser_click') {
  m = await mountPanel({
    snapshots: [
      snapshot('t1', [user('u1', 'go'), assistant('a1', '', { providerStopReason: 'tool_use' })], {
        run: { runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' },
      }),
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
    approvalRequest('t1', { tool: { name, label: 'Mouse', level, effects: 'write' } }),
  );
  return q(m.container, '.approval-card');
}

/** A click whose synchronous part is observed before any promise settles. */
function clickNow(el: HTMLElement): number {
  el.click();
  return requests.length;
}

describe('approval card and the debugger permission', () => {
  it.each([true, false])(
    'allowing an L2 action asks within the click, then sends the decision (granted: %s)',
    async (granted) => {
      const el = await card('L2');
      let during = 0;
      await act(() => {
        during = clickNow(byText(el, 'button', 'Allow once'));
      });
      expect(during).toBe(1);
      expect(requests[0]).toMatchObject({ permissions: ['debugger'], responsesBefore: 0 });
      await flush();
      expect(m.port().ops('approval.response')).toEqual([]);
      requests[0].answer(granted);
      await flush();
      expect(m.port().last('approval.response')).toMatchObject({
        approvalId: 'ap-1',
        decision: 'allow_once',
      });
    },
  );

  it('denying an L2 action, or any decision on an L1 one, asks nothing', async () => {
    let el = await card('L2');
    await act(() => void clickNow(byText(el, 'button', 'Deny')));
    await flush();
    expect(m.port().last('approval.response')).toMatchObject({ decision: 'deny' });
    m.unmount();
    el = await card('L1');
    await act(() => void clickNow(byText(el, 'button', 'Always allow on this site')));
    await flush();
    expect(m.port().last('approval.response')).toMatchObject({ decision: 'allow_site' });
    expect(requests).toEqual([]);
  });
});
