// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import './helpers/dom-shims';
import {
  approvalRequest,
  assistant,
  settings,
  snapshot,
  toolCall,
  toolResult,
  user,
} from './helpers/fixtures';
import { mountPanel, q, type Mounted } from './helpers/mount';
import { messageParts } from '../../../sidepanel/i18n';

const input = (el: HTMLInputElement | HTMLSelectElement, value: string) => {
  el.value = value;
  el.dispatchEvent(
    new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }),
  );
};

describe('issue 19 in the panel (scripted engine)', () => {
  let m: Mounted;
  afterEach(() => m.unmount());

  it('a partial answer kept at an interrupt shows its text, marked as interrupted (either field)', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [
          user('u1', 'write a long story'),
          assistant('a1', 'Once upon a time there was', { providerStopReason: 'interrupted' }),
          user('u2', 'again'),
          { ...assistant('a2', 'A second start'), stopReason: 'interrupted' } as never,
          assistant('a3', 'Finished.'),
        ]),
      ],
      open: 't1',
    });
    const msgs = [...m.container.querySelectorAll<HTMLElement>('.msg.assistant')];
    expect(msgs.map((el) => el.dataset.stop ?? null)).toEqual(['interrupted', 'interrupted', null]);
    expect(msgs[0].textContent).toContain('Once upon a time there was');
    expect(msgs[0].querySelector('.stop-interrupted')?.textContent).toBe(
      'Interrupted: the answer stops here.',
    );
    expect(msgs[2].querySelector('.stop-interrupted')).toBeNull();
  });

  it('a finished tool card reads as its summary; the approval card asks in a sentence with the raw JSON folded', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot(
          't1',
          [
            user('u1', 'buy milk'),
            toolCall('c1', 'result', { name: 'browser_click', params: { ref: 'e5' } }),
            toolResult('r1', 'tc-c1', {
              details: { target: { role: 'button', name: 'Add to cart' } },
            }),
          ],
          {
            run: { runId: 'run-1', turnId: 'turn-1', state: 'waiting_approval' },
          },
        ),
      ],
      open: 't1',
    });
    expect(m.container.querySelector('.tool-card .tool-line')?.textContent).toBe(
      'Clicked Add to cart',
    );
    await m.emit(
      approvalRequest('t1', {
        tool: { name: 'browser_type', label: 'Type', level: 'L1', effects: 'write' },
        params: { ref: 'e2', text: 'buy milk', submit: true },
        target: {
          url: 'https://widgets.example/form',
          origin: 'https://widgets.example',
          topOrigin: 'https://todo.example',
          element: { role: 'textbox', name: 'New todo' },
        },
      }),
    );
    const card = q(m.container, '.approval-card');
    expect(q(card, '.approval-sentence').textContent).toBe(
      'Type “buy milk” into New todo, then press Enter',
    );
    expect([...card.querySelectorAll('.approval-sentence em')].map((e) => e.textContent)).toEqual([
      'buy milk',
      'New todo',
    ]);
    expect(q(card, '.approval-origin').textContent).toBe(
      'in a frame of https://todo.example, from https://widgets.example',
    );
    const raw = q<HTMLDetailsElement>(card, 'details.approval-params');
    expect(raw.open).toBe(false);
    expect(raw.querySelector('pre')?.textContent).toContain('"submit": true');
  });

  it('compact mode folds consecutive page reads into one line; turning it off shows each card', async () => {
    const read = (n: number) => [
      toolCall(`c${n}`, 'result', { name: 'browser_snapshot', effects: 'read', params: {} }),
      toolResult(`r${n}`, `tc-c${n}`, { details: { title: 'Shop' } }),
    ];
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [
          user('u1', 'look'),
          ...read(1),
          ...read(2),
          ...read(3),
          assistant('a1', 'Seen.'),
        ]),
      ],
      open: 't1',
    });
    expect([...m.container.querySelectorAll('.tool-line')].map((e) => e.textContent)).toEqual([
      'Read the page 3 times',
    ]);
    m.panel.setCompactReads(false);
    await m.flush();
    expect(m.container.querySelector('.reads-fold')).toBeNull();
    expect([...m.container.querySelectorAll('.tool-line')].map((e) => e.textContent)).toEqual([
      'Read the page “Shop”',
      'Read the page “Shop”',
      'Read the page “Shop”',
    ]);
  });

  it('page text in a target name stays text: no markup reaches the card', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [user('u1', 'x')], {
          run: { runId: 'run-1', turnId: 'turn-1', state: 'waiting_approval' },
        }),
      ],
      open: 't1',
    });
    await m.emit(
      approvalRequest('t1', {
        tool: { name: 'browser_click', label: 'Click', level: 'L1', effects: 'write' },
        params: { ref: 'e1' },
        target: {
          origin: 'https://evil.example',
          element: { role: 'button', name: '<img src=x onerror=alert(1)>' },
        } as never,
      }),
    );
    const sentence = q(m.container, '.approval-sentence');
    expect(sentence.querySelector('img')).toBeNull();
    expect(sentence.textContent).toBe('Click <img src=x onerror=alert(1)>');
  });

  it('italics mark the substitutions themselves, even when a name also occurs in the wording', async () => {
    m = await mountPanel({
      snapshots: [
        snapshot('t1', [user('u1', 'x')], {
          run: { runId: 'run-1', turnId: 'turn-1', state: 'waiting_approval' },
        }),
      ],
      open: 't1',
    });
    await m.emit(
      approvalRequest('t1', {
        tool: { name: 'browser_type', label: 'Type', level: 'L1', effects: 'write' },
        params: { ref: 'e1', text: 'e' },
        target: {
          origin: 'https://a.example',
          element: { role: 'textbox', name: 'Type' },
        } as never,
      }),
    );
    const sentence = q(m.container, '.approval-sentence');
    expect(sentence.innerHTML).toBe('Type “<em>e</em>” into <em>Type</em>');
    expect(messageParts('exportSeconds', ['1.5'])).toEqual([{ sub: '1.5' }, ' s']);
  });

  it('first run: the guide saves the provider and default model in one settings.update, then sends a test message', async () => {
    m = await mountPanel({
      settings: settings({ providers: [], defaultModel: undefined as never }),
    });
    const guide = q(m.container, '.onboarding');
    q<HTMLInputElement>(guide, 'input[value="local"]').click();
    await m.flush();
    q<HTMLButtonElement>(guide, '[data-action="onboard-next"]').click();
    await m.flush();
    input(q<HTMLSelectElement>(guide, '#onboard-preset'), 'lmstudio');
    await m.flush();
    expect(q<HTMLInputElement>(guide, '#onboard-url').value).toBe('http://localhost:1234/v1');
    expect(guide.querySelector('.onboard-note')).toBeNull(); // OLLAMA_ORIGINS is Ollama's alone
    q<HTMLButtonElement>(guide, '[data-action="onboard-next"]').click();
    await m.flush();
    input(q<HTMLInputElement>(guide, '#onboard-model'), 'qwen2.5-7b-instruct');
    await m.flush();
    q<HTMLButtonElement>(guide, '[data-action="onboard-next"]').click();
    await m.flush();
    const op = m.port().last('settings.update');
    expect(op.patch).toEqual({
      providers: [
        {
          id: 'lmstudio',
          kind: 'openai',
          label: 'LM Studio',
          baseURL: 'http://localhost:1234/v1',
          models: [{ id: 'qwen2.5-7b-instruct' }],
        },
      ],
      defaultModel: { providerId: 'lmstudio', model: 'qwen2.5-7b-instruct' },
    });
    m.port().ack(op, {
      settings: settings({
        providers: [{ id: 'lmstudio', kind: 'openai', hasApiKey: false }],
        defaultModel: { providerId: 'lmstudio', model: 'qwen2.5-7b-instruct' },
      }),
    });
    await m.flush();
    q<HTMLButtonElement>(m.container, '[data-action="onboard-test"]').click();
    await m.flush();
    expect(
      m.port().ops('thread.create').length + m.port().ops('turn.submit').length,
    ).toBeGreaterThan(0);
  });
});
