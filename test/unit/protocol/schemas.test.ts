import { describe, expect, it } from 'vitest';
import {
  AgentEvent,
  EventSchemas,
  LIMITS,
  OP_TYPES,
  Op,
  OpSchemas,
  eventThreadId,
  type OpType,
} from '../../../src/protocol';

const env = { clientId: 'ui', submissionId: 's1' };

/** One minimal valid op per type. */
const MINIMAL: Record<OpType, Record<string, unknown>> = {
  initialize: { type: 'initialize' },
  'thread.create': { type: 'thread.create' },
  'thread.delete': { type: 'thread.delete', threadId: 't' },
  'thread.fork': { type: 'thread.fork', threadId: 't', nodeId: 'n' },
  'thread.selectBranch': { type: 'thread.selectBranch', threadId: 't', leafId: 'n' },
  'thread.subscribe': { type: 'thread.subscribe', threadId: 't' },
  'thread.unsubscribe': { type: 'thread.unsubscribe', threadId: 't' },
  'thread.setOptions': { type: 'thread.setOptions', threadId: 't', options: {} },
  'turn.submit': { type: 'turn.submit', threadId: 't', input: { text: 'hi' } },
  'turn.steer': { type: 'turn.steer', threadId: 't', expectedTurnId: 'u', input: { text: 'hi' } },
  'turn.enqueue': { type: 'turn.enqueue', threadId: 't', input: { text: 'hi' } },
  'queue.update': { type: 'queue.update', threadId: 't', queueItemId: 'q', input: { text: 'hi' } },
  'queue.remove': { type: 'queue.remove', threadId: 't', queueItemId: 'q' },
  'turn.interrupt': { type: 'turn.interrupt', threadId: 't' },
  'approval.response': { type: 'approval.response', approvalId: 'a', decision: 'allow_once' },
  'interaction.response': {
    type: 'interaction.response',
    interactionId: 'i',
    response: { answer: 'x' },
  },
  'run.resume': { type: 'run.resume', runId: 'r' },
  'run.resolveUncertain': { type: 'run.resolveUncertain', runId: 'r', resolution: 'retry' },
  'run.takeOver': { type: 'run.takeOver', threadId: 't' },
  'run.handBack': { type: 'run.handBack', threadId: 't' },
  'settings.update': { type: 'settings.update', patch: {} },
  'siteRules.set': { type: 'siteRules.set', origin: 'example.com', rule: 'allow' },
  'thread.export': { type: 'thread.export', threadId: 't' },
  'thread.recording': { type: 'thread.recording', threadId: 't' },
  'thread.search': { type: 'thread.search', query: 'milk' },
  'skills.import': { type: 'skills.import', content: '---\nname: a\ndescription: b\n---\nbody' },
  'skills.remove': { type: 'skills.remove', name: 'a' },
  'mcp.signIn': { type: 'mcp.signIn', serverId: 'srv' },
  'bridge.pairingRequest': {
    type: 'bridge.pairingRequest',
    pairingId: 'p',
    clientName: 'Claude Code',
    secretHash: 'a'.repeat(64),
  },
  'bridge.pairingRespond': { type: 'bridge.pairingRespond', pairingId: 'p', decision: 'allow' },
  'bridge.pairingRevoke': { type: 'bridge.pairingRevoke', pairingId: 'p' },
  'tool.callExternal': {
    type: 'tool.callExternal',
    pairingId: 'p',
    name: 'browser_snapshot',
    args: {},
  },
  'mcp.signOut': { type: 'mcp.signOut', serverId: 'srv' },
  'workflow.save': { type: 'workflow.save', threadId: 't', turnId: 'u', name: 'Reorder' },
  'workflow.run': { type: 'workflow.run', workflowId: 'w' },
  'workflow.update': { type: 'workflow.update', workflowId: 'w', patch: {} },
  'workflow.delete': { type: 'workflow.delete', workflowId: 'w' },
  'workflow.clearRuns': { type: 'workflow.clearRuns', workflowId: 'w' },
  'workflow.recordStart': { type: 'workflow.recordStart' },
  'secrets.set': {
    type: 'secrets.set',
    origin: 'https://example.com',
    name: 'password',
    kind: 'password',
    value: 'x',
  },
  'secrets.remove': { type: 'secrets.remove', origin: 'https://example.com', name: 'password' },
  'workflow.recordStop': { type: 'workflow.recordStop', recordingId: 'rec' },
  'workflow.recordSave': { type: 'workflow.recordSave', recordingId: 'rec', name: 'Buy' },
  'workflow.recordDiscard': { type: 'workflow.recordDiscard', recordingId: 'rec' },
};

describe('op schemas', () => {
  it('every PROTOCOL.md op exists, plus the additions', () => {
    const fromProtocolMd = [
      'initialize',
      'thread.create',
      'thread.delete',
      'thread.fork',
      'thread.selectBranch',
      'thread.subscribe',
      'turn.submit',
      'turn.steer',
      'turn.enqueue',
      'queue.update',
      'queue.remove',
      'turn.interrupt',
      'approval.response',
      'interaction.response',
      'run.resume',
      'run.resolveUncertain',
      'settings.update',
      'siteRules.set',
      'workflow.save',
      'workflow.run',
      'workflow.update',
      'workflow.delete',
    ];
    for (const t of fromProtocolMd) expect(OP_TYPES).toContain(t);
    expect(OP_TYPES.filter((t) => !fromProtocolMd.includes(t)).sort()).toEqual([
      'bridge.pairingRequest',
      'bridge.pairingRespond',
      'bridge.pairingRevoke',
      'mcp.signIn',
      'mcp.signOut',
      'run.handBack',
      'run.takeOver',
      'secrets.remove',
      'secrets.set',
      'skills.import',
      'skills.remove',
      'thread.export',
      'thread.recording',
      'thread.search',
      'thread.setOptions',
      'thread.unsubscribe',
      'tool.callExternal',
      'workflow.clearRuns',
      'workflow.recordDiscard',
      'workflow.recordSave',
      'workflow.recordStart',
      'workflow.recordStop',
    ]);
    expect(Object.keys(MINIMAL).sort()).toEqual([...OP_TYPES].sort());
  });

  it('the Op union accepts a minimal op of every type and matches its own schema', () => {
    for (const type of OP_TYPES) {
      const raw = { ...env, ...MINIMAL[type] };
      expect([type, Op.safeParse(raw).success]).toEqual([type, true]);
      expect([type, OpSchemas[type].safeParse(raw).success]).toEqual([type, true]);
    }
  });

  it('every op needs clientId and submissionId (non-empty, bounded)', () => {
    for (const type of OP_TYPES) {
      expect(Op.safeParse(MINIMAL[type]).success).toBe(false);
      expect(Op.safeParse({ ...MINIMAL[type], clientId: '', submissionId: 's' }).success).toBe(
        false,
      );
      expect(
        Op.safeParse({ ...MINIMAL[type], clientId: 'c', submissionId: 'x'.repeat(201) }).success,
      ).toBe(false);
    }
  });

  it('rejects unknown types, wrong enums and oversized input', () => {
    expect(Op.safeParse({ ...env, type: 'thread.nuke' }).success).toBe(false);
    expect(
      Op.safeParse({ ...env, type: 'approval.response', approvalId: 'a', decision: 'maybe' })
        .success,
    ).toBe(false);
    expect(
      Op.safeParse({ ...env, type: 'siteRules.set', origin: 'x', rule: 'sometimes' }).success,
    ).toBe(false);
    const submit = (input: unknown) =>
      Op.safeParse({ ...env, type: 'turn.submit', threadId: 't', input }).success;
    expect(submit({ text: 'x'.repeat(LIMITS.maxTextChars) })).toBe(true);
    expect(submit({ text: 'x'.repeat(LIMITS.maxTextChars + 1) })).toBe(false);
    const img = { mimeType: 'image/png', dataBase64: 'iVBORw0KGgo=' };
    expect(submit({ text: '', images: Array(LIMITS.maxImages).fill(img) })).toBe(true);
    expect(submit({ text: '', images: Array(LIMITS.maxImages + 1).fill(img) })).toBe(false);
    expect(submit({ text: '', images: [{ ...img, mimeType: 'image/svg+xml' }] })).toBe(false);
    expect(submit({ text: '', images: [{ ...img, dataBase64: 'not base64!' }] })).toBe(false);
  });

  it('turn.submit accepts parentNodeId and overrides; settings patches are validated', () => {
    expect(
      Op.safeParse({
        ...env,
        type: 'turn.submit',
        threadId: 't',
        input: { text: 'x' },
        parentNodeId: 'n',
        overrides: { providerId: 'p', model: 'm' },
      }).success,
    ).toBe(true);
    expect(
      Op.safeParse({
        ...env,
        type: 'settings.update',
        patch: { providers: [{ id: 'p', kind: 'openai', baseURL: 'not a url' }] },
      }).success,
    ).toBe(false);
    expect(
      Op.safeParse({ ...env, type: 'settings.update', patch: { tokenBudget: -1 } }).success,
    ).toBe(false);
    expect(
      Op.safeParse({
        ...env,
        type: 'settings.update',
        patch: { providers: [{ id: 'p', remove: true }], tokenBudget: null },
      }).success,
    ).toBe(true);
    expect(
      Op.safeParse({
        ...env,
        type: 'settings.update',
        patch: { mcpServers: [{ id: 'bad id!', url: 'https://x.example', enabled: true }] },
      }).success,
    ).toBe(false);
  });
});

describe('event schemas', () => {
  it('every PROTOCOL.md event exists, plus the additions, and the union covers every schema', () => {
    const fromProtocolMd = [
      'initialized',
      'thread.snapshot',
      'thread.updated',
      'thread.deleted',
      'turn.start',
      'item.start',
      'item.delta',
      'item.updated',
      'item.complete',
      'token.usage',
      'approval.request',
      'approval.resolved',
      'interaction.request',
      'interaction.resolved',
      'queue.updated',
      'todo.updated',
      'run.updated',
      'turn.complete',
      'command.ack',
      'command.reject',
      'workflows.updated',
    ];
    const types = Object.keys(EventSchemas);
    for (const t of fromProtocolMd) expect(types).toContain(t);
    expect(types.filter((t) => !fromProtocolMd.includes(t)).sort()).toEqual([
      'item.discarded',
      'settings.updated',
      'workflow.recording',
    ]);
    expect(AgentEvent.options).toHaveLength(types.length);
  });

  it('eventThreadId routes thread events and leaves global ones unscoped', () => {
    expect(eventThreadId({ type: 'item.delta', threadId: 't1', itemId: 'i', delta: {} })).toBe(
      't1',
    );
    expect(eventThreadId({ type: 'thread.deleted', threadId: 't2' })).toBe('t2');
    expect(
      eventThreadId({
        type: 'thread.updated',
        thread: { threadId: 't3', title: '', createdAt: 0, updatedAt: 0, leafId: null },
      }),
    ).toBe('t3');
    expect(eventThreadId({ type: 'command.ack', submissionId: 's' })).toBeUndefined();
    expect(
      eventThreadId({
        type: 'settings.updated',
        settings: {
          providers: [],
          defaultModel: null,
          taskModel: null,
          tokenBudget: null,
          approvalMode: 'ask',
          locale: null,
          mcpServers: [],
          siteRules: [],
        },
      }),
    ).toBeUndefined();
  });

  it('a public provider cannot carry an apiKey through validation', () => {
    const parsed = EventSchemas['settings.updated'].parse({
      type: 'settings.updated',
      settings: {
        providers: [{ id: 'p', kind: 'openai', hasApiKey: true, apiKey: 'sk-leak' }],
        defaultModel: null,
        taskModel: null,
        tokenBudget: null,
        approvalMode: 'ask',
        locale: null,
        mcpServers: [],
        siteRules: [],
      },
    });
    expect(JSON.stringify(parsed)).not.toContain('sk-leak');
  });
});
