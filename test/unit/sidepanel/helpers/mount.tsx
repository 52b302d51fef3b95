import { render } from 'preact';
import { act } from 'preact/test-utils';
import en from '../../../../_locales/en/messages.json';
import type {
  AgentEvent,
  PublicSettings,
  ThreadMeta,
  ThreadSnapshot,
} from '../../../../src/protocol';
import { App } from '../../../../sidepanel/components/App';
import { installBundles, type Bundle } from '../../../../sidepanel/i18n';
import { EngineClient } from '../../../../sidepanel/state/engine-client';
import { Panel } from '../../../../sidepanel/state/panel';
import { FakeEngine, ManualTimers, type FakeTransport } from './fake-engine';
import { settings as defaultSettings } from './fixtures';

export interface Mounted {
  panel: Panel;
  engine: FakeEngine;
  timers: ManualTimers;
  container: HTMLElement;
  /** The current connection. */
  port: () => FakeTransport;
  /** Emit events and let Preact render. */
  emit: (...events: AgentEvent[]) => Promise<void>;
  flush: () => Promise<void>;
  unmount: () => void;
}

export async function flush(): Promise<void> {
  // Several rounds: an ack resolves a promise, whose continuation updates state, which renders.
  for (let i = 0; i < 4; i++) {
    await act(async () => {
      await Promise.resolve();
    });
  }
}

/**
 * Render the whole panel against a scripted engine: connect, answer `initialize` with the given
 * threads/snapshots, and select `open` if given.
 */
export async function mountPanel(
  opts: {
    threads?: ThreadMeta[];
    snapshots?: ThreadSnapshot[];
    settings?: PublicSettings;
    open?: string;
  } = {},
): Promise<Mounted> {
  installBundles('en', en as Bundle);
  const engine = new FakeEngine();
  const timers = new ManualTimers();
  const client = new EngineClient({
    connect: engine.connect,
    clientId: 'panel-test',
    setTimer: timers.set,
    clearTimer: timers.clear,
    random: () => 0.5,
  });
  const panel = new Panel({ client, storage: null });
  const container = document.createElement('div');
  document.body.append(container);
  await act(() => {
    render(<App panel={panel} />, container);
  });
  panel.start();
  const snapshots = opts.snapshots ?? [];
  engine.current.emit({
    type: 'initialized',
    threads: opts.threads ?? snapshots.map((s) => s.thread),
    snapshots,
    settings: opts.settings ?? defaultSettings(),
  });
  if (opts.open) panel.selectThread(opts.open);
  await flush();
  const emit = async (...events: AgentEvent[]) => {
    for (const ev of events) engine.current.emit(ev);
    await flush();
  };
  return {
    panel,
    engine,
    timers,
    container,
    port: () => engine.current,
    emit,
    flush,
    unmount: () => {
      render(null, container);
      container.remove();
      client.dispose();
    },
  };
}

/** Dispatch a keydown the way a browser would, on a focused element. */
export async function press(
  el: Element,
  key: string,
  mods: Partial<Pick<KeyboardEvent, 'shiftKey' | 'altKey' | 'ctrlKey' | 'metaKey'>> = {},
): Promise<KeyboardEvent> {
  const ev = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...mods });
  await act(() => {
    el.dispatchEvent(ev);
  });
  await flush();
  return ev;
}

export async function click(el: Element | null): Promise<void> {
  if (!el) throw new Error('click: no element');
  await act(() => {
    (el as HTMLElement).click();
  });
  await flush();
}

/** Type into a textarea/input through the input event, as the composer listens for. */
export async function typeInto(el: Element | null, value: string): Promise<void> {
  if (!el) throw new Error('typeInto: no element');
  await act(() => {
    (el as HTMLTextAreaElement).value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await flush();
}

export function q<T extends Element = HTMLElement>(root: ParentNode, selector: string): T {
  const el = root.querySelector<T>(selector);
  if (!el) throw new Error(`no element for ${selector}`);
  return el;
}

export function byText<T extends Element = HTMLElement>(
  root: ParentNode,
  selector: string,
  text: string,
): T {
  const el = [...root.querySelectorAll<T>(selector)].find((e) => e.textContent?.trim() === text);
  if (!el) throw new Error(`no ${selector} with text "${text}"`);
  return el;
}
