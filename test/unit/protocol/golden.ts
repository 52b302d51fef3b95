import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig, testTool, type Rig } from '../engine/harness';

/**
 * Golden fixtures (STYLE.md §6) freeze what crosses a boundary: wire events, persisted records,
 * the JSON Schema sent to models. `UPDATE_GOLDEN=1 npx vitest run <file>` rewrites them; any
 * other run compares. Review a regenerated fixture's diff like code: it is a contract change.
 */

export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/golden');

export function expectGolden(name: string, value: unknown): void {
  const file = join(GOLDEN_DIR, `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file))
    throw new Error(
      `golden fixture ${file} is missing: run the test with UPDATE_GOLDEN=1 and review the file`,
    );
  const expected: unknown = JSON.parse(readFileSync(file, 'utf8'));
  expect(
    JSON.parse(text),
    `${name}.json differs (UPDATE_GOLDEN=1 rewrites it after review)`,
  ).toEqual(expected);
}

/** Fields whose values are opaque ids: replaced by `<prefix#n>`, numbered in order of appearance. */
const ID_KEYS = new Set([
  'id',
  'threadId',
  'runId',
  'turnId',
  'itemId',
  'leafId',
  'parentId',
  'assistantId',
  'assistantNodeId',
  'nodeId',
  'approvalId',
  'interactionId',
  'toolCallId',
  'submissionId',
  'steerId',
  'queueItemId',
  'parentThreadId',
  'forkedFromNodeId',
]);
const TIME_KEYS = new Set(['createdAt', 'updatedAt', 'resolvedAt', 'admittedAt']);

/**
 * Replace what differs from run to run with stable placeholders: ids (by first appearance, so the
 * same id is the same placeholder everywhere in one fixture), timestamps, the date in the system
 * prompt, receipt keys and op fingerprints (hashes of payloads that contain ids). Content-derived
 * digests (tool descriptors, approvals) are kept: they must not change unless the content does.
 */
export class Normalizer {
  private readonly ids = new Map<string, string>();
  private readonly counters = new Map<string, number>();

  id(value: string, key: string): string {
    let out = this.ids.get(value);
    if (!out) {
      const prefix = /^([a-z]+)_/i.exec(value)?.[1] ?? key;
      const n = (this.counters.get(prefix) ?? 0) + 1;
      this.counters.set(prefix, n);
      out = `<${prefix}#${n}>`;
      this.ids.set(value, out);
    }
    return out;
  }

  normalize<T>(value: T): T {
    return this.walk(value, '') as T;
  }

  private walk(value: unknown, key: string): unknown {
    if (Array.isArray(value)) return value.map((v) => this.walk(v, key));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.walk(v, k);
      return out;
    }
    if (typeof value === 'number' && TIME_KEYS.has(key)) return '<time>';
    if (typeof value !== 'string') return value;
    if (ID_KEYS.has(key)) return this.id(value, key);
    if (key === 'key' && value.includes('\u0000')) {
      const [clientId, submissionId] = value.split('\u0000');
      return `${clientId}\\0${this.id(submissionId, 'submissionId')}`;
    }
    if (key === 'fingerprint' && /^[0-9a-f]{64}$/.test(value)) return '<sha256 of the op payload>';
    if (key === 'systemPrompt') return value.replace(/\d{4}-\d{2}-\d{2}/g, '<date>');
    return value;
  }
}

export interface GoldenTurn {
  rig: Rig;
  threadId: string;
  runId: string;
  /** The ops this test sent, in order, as sent (clientId and submissionId included). */
  ops: Record<string, unknown>[];
  /** Every event the client received from the first of those ops on. */
  events: AgentEvent[];
}

/**
 * The scripted turn both wire and record fixtures freeze: create a thread, submit a task; the
 * model calls a write tool (which asks for approval), the user allows it once, the tool runs,
 * and the model answers.
 */
export async function runGoldenTurn(): Promise<GoldenTurn> {
  const click = testTool('click', { effects: 'write' });
  const rig = await makeRig({
    tools: [click],
    script: [
      {
        text: 'Adding it to your cart.',
        toolCalls: [
          { id: 'call_buy', name: 'click', args: { value: 'add-to-cart' }, fragments: 2 },
        ],
        usage: { inputTokens: 120, outputTokens: 18 },
      },
      { text: 'Done: the item is in your cart.', usage: { inputTokens: 160, outputTokens: 9 } },
    ],
  });
  const from = rig.client.events.length;
  const ops: Record<string, unknown>[] = [];
  let n = 100;
  const send = async <T>(op: Record<string, unknown>): Promise<T> => {
    const submissionId = `s${++n}`;
    ops.push({ clientId: rig.client.clientId, submissionId, ...op });
    const answer = await rig.client.send(op, submissionId);
    if (answer.type !== 'command.ack')
      throw new Error(`${String(op.type)} rejected: ${answer.code} ${answer.message}`);
    return (answer.result ?? {}) as T;
  };
  const { threadId } = await send<{ threadId: string }>({ type: 'thread.create', title: 'Golden' });
  const { runId } = await send<{ runId: string }>({
    type: 'turn.submit',
    threadId,
    input: { text: 'Add the blue mug to my cart' },
  });
  const req = (await rig.client.waitFor(
    (e) => e.type === 'approval.request' && e.runId === runId,
  )) as Extract<AgentEvent, { type: 'approval.request' }>;
  await send({ type: 'approval.response', approvalId: req.approvalId, decision: 'allow_once' });
  await rig.client.turnComplete(runId);
  // Let anything emitted after turn.complete land, so the fixture sees the whole sequence.
  await new Promise((r) => setTimeout(r, 20));
  expect(click.runs).toBe(1);
  return { rig, threadId, runId, ops, events: rig.client.events.slice(from) };
}
