/**
 * Recording a workflow by showing it (issue 27): the pure derivation of a recording's entries,
 * the recorder's rules (one recording, its tab only, navigations the user made, a worker
 * restart in the middle), and the engine's ops over it. Locators come from snapshots the real
 * snapshot tool took on the demo shop (real-snapshots.ts), never from hand-typed outlines.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { locatorOf, type SemanticLocator } from '../../../src/workflows/locator';
import { outlineOf } from '../../../src/workflows/outline';
import { collapse, deriveRecording } from '../../../src/workflows/recording/derive-recording';
import type { RecordedEntry } from '../../../src/workflows/recording/recorded-step';
import {
  CAUSED_NAVIGATION_MS,
  Recorder,
  type RecorderHost,
  type RecordingState,
} from '../../../src/workflows/recording/recorder';
import { makeRig } from '../engine/harness';
import { capturedTurn, snapshotsOf } from './real-snapshots';

const turn = capturedTurn('shop-qty2-model-turn');
const [home, results, product, cart] = snapshotsOf(turn.items);

function control(snap: typeof home, role: string, name: string): SemanticLocator {
  const o = outlineOf(snap);
  const c = o.controls.find((x) => x.role === role && x.name === name);
  if (!c) throw new Error(`no ${role} "${name}" in ${snap.url}`);
  return locatorOf(c);
}

const search = control(home, 'searchbox', 'Search products');
const cable = control(results, 'link', 'Linkwire Braided USB-C Cable, 0.5 m');
const qty = control(product, 'spinbutton', 'Quantity');
const add = control(product, 'button', 'Add to cart');
const finalOutline = outlineOf(cart);
const finalPage = {
  url: finalOutline.url,
  texts: finalOutline.texts,
  headingTexts: finalOutline.headingTexts,
};

let at = 0;
const page = (
  step: Extract<RecordedEntry, { kind: 'page' }>['step'],
  frameId = 0,
): RecordedEntry => ({
  kind: 'page',
  step,
  frameId,
  at: ++at,
});

/** The demo shop task as a user shows it: search, open the cable, quantity 2, add to cart. */
const demo: RecordedEntry[] = [
  page({ action: 'type', locator: search, text: 'USB-C cable', submit: true, url: home.url }),
  page({ action: 'click', locator: cable, doubleClick: false, url: results.url }),
  page({ action: 'type', locator: qty, text: '2', submit: false, url: product.url }),
  page({ action: 'click', locator: add, doubleClick: false, url: product.url }),
];

describe('deriveRecording', () => {
  it('makes the steps a model-derived workflow has, typed values as named inputs', () => {
    const d = deriveRecording(demo, { startUrl: home.url, final: finalPage });
    expect(d.kind).toBe('ok');
    if (d.kind !== 'ok') return;
    const w = d.workflow;
    expect(w.steps.map((s) => s.tool)).toEqual([
      'browser_type',
      'browser_click',
      'browser_type',
      'browser_click',
    ]);
    expect(w.inputs).toEqual([
      { name: 'search_products', default: 'USB-C cable' },
      { name: 'quantity', default: '2' },
    ]);
    expect(w.steps[0].params).toEqual({ text: '{{search_products}}', clear: true, submit: true });
    expect(w.steps[2].params).toEqual({ text: '{{quantity}}', clear: true, submit: false });
    expect(w.steps[1].locator).toMatchObject({ role: 'link', name: cable.name });
    expect(w.steps[1].locator?.urlPattern).toBeTruthy();
    expect(w.startUrl).toBe(home.url);
    // The final check is what the cart page shows, the typed quantity as its input; never the URL's ?qty=2.
    // (as a model-derived workflow of the same task does: deriveWorkflow on the captured turn).
    expect(w.check.texts).toEqual([
      'Your cart',
      'Added {{quantity}} × Linkwire Braided {{search_products}}, 0.5 m to your cart.',
      '{{quantity}} | $6.79 | $13.58 |',
      'Total: $13.58 ({{quantity}} items)',
    ]);
    expect(w.check.urlPattern).toMatch(/\/cart$/);
    expect(w.check.texts.join(' ')).not.toMatch(/qty=|untrusted|Snapshot of/);
    expect(w.task).toMatch(/^Do what the user demonstrated/);
    expect(w.task).toContain('{{quantity}}');
  });

  it('records a secret field as an input without a value, and never holds what was typed', () => {
    const entries: RecordedEntry[] = [
      page({
        action: 'type',
        locator: { ...search, name: 'Email' },
        text: 'me@example.test',
        submit: false,
        url: home.url,
      }),
      page({
        action: 'type',
        locator: { ...search, role: 'textbox', name: 'Password' },
        secret: true,
        submit: true,
        url: home.url,
      }),
    ];
    const d = deriveRecording(entries, { startUrl: home.url });
    if (d.kind !== 'ok') throw new Error(d.message);
    expect(d.workflow.inputs).toEqual([
      { name: 'email', default: 'me@example.test' },
      { name: 'password', secret: true },
    ]);
    expect(d.workflow.steps[1].params).toEqual({ text: '{{password}}', clear: true, submit: true });
  });

  it('merges a double-click with its clicks, and a field typed twice into its last value', () => {
    const steps = collapse([
      page({ action: 'click', locator: cable, doubleClick: false, url: results.url }),
      page({ action: 'click', locator: cable, doubleClick: false, url: results.url }),
      page({ action: 'click', locator: cable, doubleClick: true, url: results.url }),
      page({ action: 'type', locator: qty, text: '3', submit: false, url: product.url }),
      page({ action: 'type', locator: qty, text: '2', submit: false, url: product.url }),
      page({ action: 'type', locator: search, text: 'a', submit: true, url: product.url }),
      page({ action: 'type', locator: search, text: 'b', submit: true, url: product.url }),
    ]);
    expect(steps.map((s) => s.tool)).toEqual([
      'browser_click',
      'browser_type',
      'browser_type',
      'browser_type',
    ]);
    expect(steps[0]).toMatchObject({ doubleClick: true });
    expect(steps[1]).toMatchObject({ text: '2' });
  });

  it('applies the review: dropped steps are gone with their inputs, inputs are renamed everywhere', () => {
    const d = deriveRecording(demo, {
      startUrl: home.url,
      final: finalPage,
      review: { drop: [0], renames: { quantity: 'how_many' } },
    });
    if (d.kind !== 'ok') throw new Error(d.message);
    expect(d.workflow.steps).toHaveLength(3);
    expect(d.workflow.inputs).toEqual([{ name: 'how_many', default: '2' }]);
    expect(JSON.stringify(d.workflow)).not.toContain('{{quantity}}');
    expect(d.workflow.steps[1].params.text).toBe('{{how_many}}');
    expect(d.workflow.steps[1].summary).toContain('{{how_many}}');
    expect(d.workflow.check.texts.join(' ')).toContain('{{how_many}}');
    // The first step left is a click on the results page: that page is where a run starts.
    expect(d.workflow.startUrl).toBe(home.url);
  });

  it('refuses a bad rename and an empty recording with a clear message', () => {
    expect(deriveRecording(demo, { review: { renames: { quantity: 'Two Words' } } })).toMatchObject(
      {
        kind: 'invalid',
      },
    );
    expect(
      deriveRecording(demo, { review: { renames: { quantity: 'search_products' } } }),
    ).toMatchObject({ kind: 'invalid', message: 'Two inputs would have the same name.' });
    expect(deriveRecording(demo, { review: { renames: { nope: 'x' } } })).toMatchObject({
      kind: 'invalid',
    });
    expect(deriveRecording([])).toMatchObject({ kind: 'empty' });
    expect(deriveRecording(demo, { review: { drop: [0, 1, 2, 3] } })).toMatchObject({
      kind: 'empty',
    });
  });

  it('a typed navigation is a step of its own and needs no start page', () => {
    const d = deriveRecording([{ kind: 'navigate', url: results.url, at: 1 }, ...demo.slice(1)], {
      startUrl: 'https://elsewhere.test/',
    });
    if (d.kind !== 'ok') throw new Error(d.message);
    expect(d.workflow.steps[0]).toMatchObject({
      tool: 'browser_navigate',
      params: { url: results.url },
    });
    expect(d.workflow.startUrl).toBeUndefined();
  });
});

/** A browser for the recorder: tabs by URL, armed frames, session storage that outlives it. */
class FakeRecorderHost implements RecorderHost {
  tabs = new Map<number, string>([[7, home.url]]);
  armed = new Map<number, string | null>();
  stored: RecordingState | undefined;
  clock = 1000;
  private n = 0;
  armFails = false;
  async tabUrl(tabId: number) {
    return this.tabs.get(tabId);
  }
  async arm(tabId: number, recordingId: string | null) {
    if (this.armFails && recordingId) throw new Error('restricted page');
    this.armed.set(tabId, recordingId);
  }
  async finalPage() {
    return finalPage;
  }
  async load() {
    return this.stored && structuredClone(this.stored);
  }
  async save(state: RecordingState | undefined) {
    this.stored = state && structuredClone(state);
  }
  newId() {
    return `rec${++this.n}`;
  }
  now() {
    return this.clock;
  }
}

describe('Recorder', () => {
  it('records its own tab only, one recording at a time, and keeps steps across a worker restart', async () => {
    const host = new FakeRecorderHost();
    const rec = new Recorder(host);
    expect(await rec.start(99)).toMatchObject({ kind: 'refused', code: 'not_found' });
    host.tabs.set(8, 'chrome://settings/');
    expect(await rec.start(8)).toMatchObject({ kind: 'refused', code: 'invalid_command' });
    const started = await rec.start(7);
    if (started.kind !== 'ok') throw new Error(started.message);
    const id = started.status.recordingId;
    expect(host.armed.get(7)).toBe(id);
    expect(await rec.start(7)).toMatchObject({ kind: 'refused', code: 'busy' });

    const s = demo[0] as Extract<RecordedEntry, { kind: 'page' }>;
    await rec.step(7, 0, id, s.step);
    await rec.step(8, 0, id, s.step); // another tab
    await rec.step(7, 0, 'rec-forged', s.step); // not this recording
    expect((await rec.status())?.steps).toHaveLength(1);

    // The worker stops; a new one picks the recording up from session storage and goes on.
    const again = new Recorder(host);
    await again.step(7, 0, id, (demo[1] as Extract<RecordedEntry, { kind: 'page' }>).step);
    const status = await again.status();
    expect(status).toMatchObject({ recordingId: id, phase: 'recording' });
    expect(status?.steps).toHaveLength(2);
  });

  it('adds the navigations the user made, not the ones a step caused', async () => {
    const host = new FakeRecorderHost();
    const rec = new Recorder(host);
    const started = await rec.start(7);
    if (started.kind !== 'ok') throw new Error(started.message);
    const id = started.status.recordingId;
    await rec.navigated(7, home.url); // where it started: nothing
    await rec.step(7, 0, id, (demo[0] as Extract<RecordedEntry, { kind: 'page' }>).step);
    host.clock += 500;
    await rec.navigated(7, results.url); // the Enter of the search did this
    host.clock += CAUSED_NAVIGATION_MS + 1;
    await rec.navigated(7, 'https://news.example.test/'); // the address bar
    await rec.navigated(7, 'chrome://newtab/'); // not a web page
    expect(host.stored?.entries.map((e) => e.kind)).toEqual(['page', 'navigate']);
  });

  it('stops on Stop (disarmed, final page read) or when its tab closes; discard forgets it', async () => {
    const host = new FakeRecorderHost();
    const rec = new Recorder(host);
    const seen: (string | null)[] = [];
    rec.onChange((s) => seen.push(s ? s.phase : null));
    const a = await rec.start(7);
    if (a.kind !== 'ok') throw new Error(a.message);
    for (const e of demo)
      await rec.step(
        7,
        0,
        a.status.recordingId,
        (e as Extract<RecordedEntry, { kind: 'page' }>).step,
      );
    const stopped = await rec.stop(a.status.recordingId);
    expect(stopped).toMatchObject({ kind: 'ok', status: { phase: 'stopped', endedBy: 'user' } });
    expect(host.armed.get(7)).toBeNull();
    expect(host.stored?.final?.texts).toContain('Your cart');
    const derived = await rec.derive(a.status.recordingId, {});
    expect(derived).toMatchObject({ kind: 'ok' });
    expect(await rec.discard(a.status.recordingId)).toEqual({ kind: 'ok' });
    expect(await rec.status()).toBeNull();
    expect(seen.at(-1)).toBeNull();

    const b = await rec.start(7);
    if (b.kind !== 'ok') throw new Error(b.message);
    expect(await rec.derive(b.status.recordingId, {})).toMatchObject({ code: 'invalid_command' });
    await rec.tabClosed(7);
    expect(await rec.status()).toMatchObject({ phase: 'stopped', endedBy: 'tab_closed' });
  });

  it('a page that cannot be armed refuses the start and leaves no recording', async () => {
    const host = new FakeRecorderHost();
    host.armFails = true;
    const rec = new Recorder(host);
    expect(await rec.start(7)).toMatchObject({ kind: 'refused', code: 'invalid_command' });
    expect(await rec.status()).toBeNull();
  });
});

describe('recording ops on the engine', () => {
  it('start, stop, review and save make a workflow that lists its inputs; events follow', async () => {
    const host = new FakeRecorderHost();
    const recorder = new Recorder(host);
    const rig = await makeRig({ recorder, activeTabId: 7 });
    const { recordingId, tabId } = await rig.client.ack<{ recordingId: string; tabId: number }>({
      type: 'workflow.recordStart',
    });
    expect(tabId).toBe(7);
    for (const e of demo)
      await recorder.step(7, 0, recordingId, (e as Extract<RecordedEntry, { kind: 'page' }>).step);
    await rig.client.waitFor(
      (e) => e.type === 'workflow.recording' && e.recording?.steps.length === demo.length,
    );
    const { recording } = await rig.client.ack<{ recording: { steps: string[] } }>({
      type: 'workflow.recordStop',
      recordingId,
    });
    expect(recording.steps).toHaveLength(4);
    const bad = await rig.client.send({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Buy cables',
      renames: { quantity: '2x' },
    });
    expect(bad).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    const { workflowId } = await rig.client.ack<{ workflowId: string }>({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Buy cables',
      drop: [],
      renames: { quantity: 'count' },
    });
    const listed = (await rig.client.waitFor(
      (e) => e.type === 'workflows.updated' && e.workflows.some((w) => w.workflowId === workflowId),
    )) as Extract<AgentEvent, { type: 'workflows.updated' }>;
    const meta = listed.workflows.find((w) => w.workflowId === workflowId)!;
    expect(meta.steps).toBe(4);
    expect(meta.inputs).toEqual([
      { name: 'search_products', default: 'USB-C cable' },
      { name: 'count', default: '2' },
    ]);
    await rig.client.waitFor((e) => e.type === 'workflow.recording' && e.recording === null);
    const stored = await rig.store.workflows.get(workflowId);
    expect(stored?.source).toEqual({ recordingId });
    // Saved once: the recording is gone, a second save is refused.
    const again = await rig.client.send({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Again',
    });
    expect(again).toMatchObject({ type: 'command.reject', code: 'not_found' });
  });

  it('without a browser the ops are refused, not crashed', async () => {
    const rig = await makeRig();
    expect(await rig.client.send({ type: 'workflow.recordStart' })).toMatchObject({
      type: 'command.reject',
      code: 'invalid_command',
    });
  });

  it('a secret input refuses a default', async () => {
    const host = new FakeRecorderHost();
    const recorder = new Recorder(host);
    const rig = await makeRig({ recorder, activeTabId: 7 });
    const { recordingId } = await rig.client.ack<{ recordingId: string }>({
      type: 'workflow.recordStart',
    });
    await recorder.step(7, 0, recordingId, {
      action: 'type',
      locator: { ...search, role: 'textbox', name: 'Password' },
      secret: true,
      submit: true,
      url: home.url,
    });
    await rig.client.ack({ type: 'workflow.recordStop', recordingId });
    const { workflowId } = await rig.client.ack<{ workflowId: string }>({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Sign in',
    });
    const refused = await rig.client.send({
      type: 'workflow.update',
      workflowId,
      patch: { inputs: [{ name: 'password', default: 'hunter2' }] },
    });
    expect(refused).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    const run = await rig.client.send({ type: 'workflow.run', workflowId });
    expect(run).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
  });

  it('a password field on a site with a stored password secret types that secret, no input', async () => {
    const host = new FakeRecorderHost();
    const recorder = new Recorder(host);
    const rig = await makeRig({ recorder, activeTabId: 7 });
    const origin = new URL(home.url).origin;
    const { placeholder } = await rig.client.ack<{ placeholder: string }>({
      type: 'secrets.set',
      origin,
      name: 'password',
      kind: 'password',
      value: 'never-in-a-workflow',
    });
    const { recordingId } = await rig.client.ack<{ recordingId: string }>({
      type: 'workflow.recordStart',
    });
    await recorder.step(7, 0, recordingId, {
      action: 'type',
      locator: { ...search, role: 'textbox', name: 'Password' },
      secret: true,
      submit: true,
      url: home.url,
    });
    await rig.client.ack({ type: 'workflow.recordStop', recordingId });
    const { workflowId } = await rig.client.ack<{ workflowId: string }>({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Sign in',
    });
    const wf = await rig.store.workflows.get(workflowId);
    expect(wf?.definition.steps[0].params.text).toBe(placeholder);
    expect(wf?.definition.inputs).toEqual([]);
    expect(JSON.stringify(wf)).not.toContain('never-in-a-workflow');
  });
});
