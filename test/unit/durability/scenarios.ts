import { z } from 'zod';
import type { RecordedRequest } from '../../../src/providers/scripted';
import type { AgentTool } from '../../../src/tools/types';
import { sendBounded, type Scenario, type ScenarioIO } from './crash-harness';

/** Replies are pure functions of the conversation, so a redone model call gets the same answer. */
const toolMsgs = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'tool').length;
const lastUserText = (req: RecordedRequest) => {
  const u = [...req.messages].reverse().find((m) => m.role === 'user');
  return u && u.role === 'user'
    ? u.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ')
    : '';
};

function counted(
  name: string,
  effects: 'read' | 'write',
  opts: {
    delayMs?: number;
    recovery?: 'retry-safe' | 'never-retry';
    onRun?: (n: number) => unknown;
  } = {},
): AgentTool<{ v?: string }> & { runs: number } {
  const tool = {
    runs: 0,
    name,
    label: name,
    description: `${name} tool`,
    parameters: z.object({ v: z.string().optional() }),
    level: 'L1' as const,
    effects,
    ...(opts.recovery ? { recovery: opts.recovery } : {}),
    async resolveTarget() {
      return { origin: 'https://shop.example', url: 'https://shop.example/', tabId: 1 };
    },
    async execute(_id: string, p: { v?: string }, signal: AbortSignal) {
      tool.runs += 1;
      const during = opts.onRun?.(tool.runs);
      // A scenario's user action during the call is answered before the call returns (bounded:
      // a killed engine never answers), so a busy machine cannot let the turn end first.
      if (during instanceof Promise)
        await Promise.race([during, new Promise((r) => setTimeout(r, 2_000))]);
      if (opts.delayMs) {
        await new Promise<void>((res, rej) => {
          const t = setTimeout(res, opts.delayMs);
          signal.addEventListener('abort', () => (clearTimeout(t), rej(new Error('aborted'))));
        });
      }
      return { content: [{ type: 'text' as const, text: `${name}(${p.v ?? ''}) ok` }] };
    },
  };
  return tool;
}

export const scenarios: Scenario[] = [
  {
    name: 'plain answer',
    reply: () => ({ text: 'Just an answer.' }),
    tools: () => [],
  },
  {
    name: 'one tool',
    reply: (req) =>
      toolMsgs(req) === 0
        ? { toolCalls: [{ name: 'probe', args: { v: 'x' } }] }
        : { text: 'Done after one tool.' },
    tools: () => [counted('probe', 'read')],
  },
  {
    name: 'parallel tool calls',
    reply: (req) =>
      toolMsgs(req) === 0
        ? {
            toolCalls: [
              { name: 'probe', args: { v: 'a' } },
              { name: 'probe', args: { v: 'b' } },
              { name: 'probe', args: { v: 'c' } },
            ],
          }
        : { text: 'Three done.' },
    tools: () => [counted('probe', 'read')],
  },
  {
    name: 'approval',
    reply: (req) =>
      toolMsgs(req) === 0
        ? { toolCalls: [{ name: 'click', args: { v: 'buy' } }] }
        : { text: 'Clicked.' },
    tools: () => [counted('click', 'write', { recovery: 'never-retry' })],
    maxRuns: { click: 1 },
  },
  {
    name: 'never-retry write on an allowed site',
    reply: (req) =>
      toolMsgs(req) === 0
        ? { toolCalls: [{ name: 'click', args: { v: 'pay' } }] }
        : { text: 'Paid.' },
    tools: () => [counted('click', 'write', { recovery: 'never-retry', delayMs: 5 })],
    allow: ['https://shop.example'],
    maxRuns: { click: 1 },
  },
  {
    name: 'steer during tool execution',
    reply: (req) =>
      toolMsgs(req) === 0
        ? { toolCalls: [{ name: 'slow', args: {} }] }
        : lastUserText(req).includes('steer')
          ? { text: 'Noted your steer.' }
          : { text: 'Done.' },
    tools: (io: ScenarioIO) => [
      counted('slow', 'read', {
        delayMs: 15,
        onRun: (n) => {
          if (n === 1) return Promise.all([io.sendSteer('steer-1'), io.sendSteer('steer-2')]);
          return undefined;
        },
      }),
    ],
  },
  {
    name: 'enqueue',
    reply: (req) =>
      lastUserText(req).includes('queued')
        ? { text: 'Queued one done.' }
        : toolMsgs(req) === 0
          ? { toolCalls: [{ name: 'probe', args: {} }] }
          : { text: 'First done.' },
    tools: () => [counted('probe', 'read', { delayMs: 5 })],
    async afterSubmit(io) {
      await sendBounded(io.client(), {
        type: 'turn.enqueue',
        threadId: io.threadId,
        input: { text: 'queued follow-up' },
      });
    },
  },
  {
    name: 'interrupt',
    reply: (req) =>
      toolMsgs(req) === 0
        ? {
            toolCalls: [
              { name: 'slow', args: {} },
              { name: 'slow', args: {} },
            ],
          }
        : { text: 'Finished after resume.' },
    tools: (io: ScenarioIO) => [
      counted('slow', 'read', { delayMs: 30, onRun: (n) => n === 1 && io.sendInterrupt() }),
    ],
    onInterrupted: 'resume',
  },
];
