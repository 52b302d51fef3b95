import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openGateForTests } from '../../../src/gatekeeper/receiver';
import type { FrameRecord } from '../../../src/store/frames-repo';
import type { BrowserToolDetails } from '../../../src/tools/browser/details';
import type { CapturedImage } from '../../../src/tools/browser/host';
import { ActionPictures } from '../../../src/tools/browser/task-frames/action-pictures';
import { frameSummary } from '../../../src/tools/browser/task-frames/frame-summary';
import {
  FRAME_QUEUE_MAX,
  type FrameShot,
  recordingFrames,
  TaskRecorder,
  type TaskFrameHost,
} from '../../../src/tools/browser/task-frames/task-recorder';
import type { AgentTool, ToolResult } from '../../../src/tools/types';

const SECRET = { placeholder: '{{secret:a.example/password}}', value: 'hunter2-very-secret' };

describe('frameSummary: one line per step, never a secret', () => {
  const details = (element: string, name = 'Password'): BrowserToolDetails => ({
    tabId: 1,
    element,
    target: { role: 'textbox', name },
    urlAfter: 'http://127.0.0.1/login',
  });

  it.each([
    {
      name: 'a click names its element',
      tool: 'browser_click',
      params: { ref: 'e3' },
      details: { tabId: 1, target: { role: 'button', name: 'Add to cart' } },
      out: 'Clicked “Add to cart”',
    },
    {
      name: 'typed text is quoted',
      tool: 'browser_type',
      params: { ref: 'e4', text: 'buy milk', submit: true },
      details: details('textbox "New todo"', 'New todo'),
      out: 'Typed “buy milk” into “New todo”, then pressed Enter',
    },
    {
      name: 'a password field’s text is masked',
      tool: 'browser_type',
      params: { ref: 'e5', text: 'swordfish' },
      details: details('textbox "Password" [type=password]'),
      out: 'Typed “••••••••” into “Password”',
    },
    {
      name: 'a site secret is its placeholder, wherever it is typed, even when long',
      tool: 'browser_type',
      params: {
        ref: 'e6',
        text: `${SECRET.value} and more text that is long enough to be clipped`,
      },
      details: details('textbox "Notes"', 'Notes'),
      out: 'Typed “{{secret:a.example/password}} and more …” into “Notes”',
    },
    {
      name: 'a navigation names the page',
      tool: 'browser_navigate',
      params: { url: 'http://127.0.0.1/a' },
      details: { tabId: 1, urlAfter: 'http://127.0.0.1/b' },
      out: 'Opened http://127.0.0.1/b',
    },
    {
      name: 'an unknown tool uses its label',
      tool: 'browser_upload_file',
      params: { ref: 'e1' },
      details: { tabId: 1, target: { role: 'button', name: 'Choose' } },
      out: 'Upload “Choose”',
    },
  ])('$name', ({ tool, params, details: d, out }) => {
    const line = frameSummary({ tool, label: 'Upload', params, details: d, secrets: [SECRET] });
    expect(line).toBe(out);
    expect(line).not.toContain('hunter2');
  });

  it('a secret in the element’s name is redacted too', () => {
    const line = frameSummary({
      tool: 'browser_click',
      label: 'Click',
      params: {},
      details: { tabId: 1, target: { role: 'button', name: `Sign out ${SECRET.value}` } },
      secrets: [SECRET],
    });
    expect(line).not.toContain(SECRET.value);
  });
});

function fakeHost(over: Partial<TaskFrameHost> = {}) {
  const saved: FrameRecord[] = [];
  const shots: FrameShot[] = [];
  let id = 0;
  const host: TaskFrameHost = {
    async picture(shot) {
      shots.push(shot);
      return { mimeType: 'image/jpeg', bytes: new Uint8Array(100), width: 64, height: 40 };
    },
    async save(f) {
      saved.push(f);
    },
    isPrivate: async (url) => url.startsWith('https://private.example'),
    knownSecrets: async () => [SECRET],
    now: () => 1000,
    newId: () => `frm_${++id}`,
    ...over,
  };
  return { host, saved, shots };
}

function actingTool(details: BrowserToolDetails, result: Partial<ToolResult> = {}): AgentTool {
  return {
    name: 'browser_click',
    label: 'Click',
    description: 'click',
    parameters: z.object({ ref: z.string() }),
    level: 'L1',
    effects: 'write',
    async execute() {
      return { content: [{ type: 'text', text: 'Clicked.' }], details, ...result };
    },
  };
}

const ctx = {
  threadId: 'thr_1',
  runId: 'run_1',
  model: { vision: false },
  gate: openGateForTests(),
};
const signal = new AbortController().signal;

describe('TaskRecorder: a frame after each page action, off the step’s path', () => {
  it('records the acted element, the summary and the run', async () => {
    const { host, saved, shots } = fakeHost();
    const recorder = new TaskRecorder(host);
    const tool = recordingFrames(
      actingTool({
        tabId: 7,
        urlBefore: 'http://127.0.0.1/',
        urlAfter: 'http://127.0.0.1/',
        target: { role: 'button', name: 'Go' },
        highlight: { x: 1, y: 2, width: 3, height: 4, frameId: 0 },
      }),
      recorder,
    );
    const result = await tool.execute('call_1', { ref: 'e1' }, signal, () => {}, ctx);
    expect(result.content).toEqual([{ type: 'text', text: 'Clicked.' }]);
    await recorder.idle();
    expect(shots).toEqual([{ tabId: 7, highlight: { x: 1, y: 2, width: 3, height: 4 } }]);
    expect(saved).toEqual([
      expect.objectContaining({
        frameId: 'frm_1',
        threadId: 'thr_1',
        runId: 'run_1',
        toolCallId: 'call_1',
        tool: 'browser_click',
        summary: 'Clicked “Go”',
        size: 100 + 'Clicked “Go”'.length,
      }),
    ]);
  });

  it('the result does not wait for the frame', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { host, saved } = fakeHost({
      async picture() {
        await gate;
        return { mimeType: 'image/jpeg', bytes: new Uint8Array(1), width: 1, height: 1 };
      },
    });
    const recorder = new TaskRecorder(host);
    const tool = recordingFrames(actingTool({ tabId: 1 }), recorder);
    await tool.execute('c', { ref: 'e1' }, signal, () => {}, ctx);
    expect(saved).toHaveLength(0);
    release();
    await recorder.idle();
    expect(saved).toHaveLength(1);
  });

  it('nothing on a private site, for an error, a hold, a read, or a box inside a frame', async () => {
    const { host, saved, shots } = fakeHost();
    const recorder = new TaskRecorder(host);
    const run = (t: AgentTool) => t.execute('c', { ref: 'e1' }, signal, () => {}, ctx);
    await run(
      recordingFrames(actingTool({ tabId: 1, urlAfter: 'https://private.example/x' }), recorder),
    );
    await run(recordingFrames(actingTool({ tabId: 1 }, { isError: true }), recorder));
    await run(
      recordingFrames(
        actingTool({ tabId: 1 }, { held: { target: {}, what: 'a frame from b.example' } }),
        recorder,
      ),
    );
    await run(recordingFrames({ ...actingTool({ tabId: 1 }), effects: 'read' }, recorder));
    await recorder.idle();
    expect(saved).toHaveLength(0);
    await run(
      recordingFrames(
        actingTool({ tabId: 1, highlight: { x: 1, y: 1, width: 1, height: 1, frameId: 3 } }),
        recorder,
      ),
    );
    await recorder.idle();
    expect(shots).toEqual([{ tabId: 1 }]);
  });

  it('the action’s own picture makes the frame; one a later write overtook makes none', async () => {
    const { host, shots, saved } = fakeHost();
    const recorder = new TaskRecorder(host);
    // The bounded wait of a write, made instant: c3 gives up on c2's picture at once.
    const pictures = new ActionPictures(async () => {});
    const image: CapturedImage = {
      mimeType: 'image/jpeg',
      dataBase64: 'AA==',
      width: 4,
      height: 3,
    };
    const captures: ((img: CapturedImage) => void)[] = [];
    const tool = recordingFrames(
      {
        ...actingTool({ tabId: 2 }),
        async execute() {
          // As page-action.ts does once the page settled: requested, not waited for.
          pictures.put(2, new Promise((r) => captures.push(r)));
          return { content: [{ type: 'text', text: 'Clicked.' }], details: { tabId: 2 } };
        },
      },
      recorder,
      pictures,
    );
    await tool.execute('c1', { ref: 'e1' }, signal, () => {}, ctx);
    captures[0](image);
    await new Promise((r) => setTimeout(r, 0));
    // c1's picture was taken before c2 acted; c3 acts while c2's is still being taken.
    await tool.execute('c2', { ref: 'e1' }, signal, () => {}, ctx);
    await tool.execute('c3', { ref: 'e1' }, signal, () => {}, ctx);
    captures[1](image);
    captures[2](image);
    await recorder.idle();
    expect(saved.map((f) => f.toolCallId)).toEqual(['c1', 'c3']);
    expect(shots).toEqual([
      { tabId: 2, image },
      { tabId: 2, image },
    ]);
  });

  it('a full queue drops its oldest waiting frame; a failed frame is skipped', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let n = 0;
    const { host, saved } = fakeHost({
      async picture() {
        n++;
        if (n === 1) await gate;
        if (n === 2) throw new Error('capture failed');
        return { mimeType: 'image/jpeg', bytes: new Uint8Array(1), width: 1, height: 1 };
      },
      log: () => {},
    });
    const recorder = new TaskRecorder(host);
    for (let i = 0; i < FRAME_QUEUE_MAX + 3; i++)
      recorder.enqueue({
        threadId: 't',
        runId: 'r',
        toolCallId: `c${i}`,
        tool: 'browser_click',
        label: 'Click',
        params: {},
        details: { tabId: 1 },
      });
    release();
    await recorder.idle();
    expect(recorder.dropped).toBe(2);
    // c0 (in progress), then c3 failed, then the rest.
    expect(saved.map((f) => f.toolCallId)).toEqual(['c0', 'c4', 'c5', 'c6']);
  });
});
