import { describe, expect, it } from 'vitest';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import type { AgentEvent } from '../../../src/protocol';
import { exportFileName, threadMarkdown } from '../../../sidepanel/export/thread-markdown';
import { i18nStore } from '../../../sidepanel/i18n';
import { makeRig, testTool } from '../engine/harness';

type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;
interface Exported {
  approvals: Array<Record<string, unknown>>;
  steps: Array<Record<string, unknown>>;
  nodes: unknown[];
  redactedSecrets: number;
}

/** A real engine: two writes (one allowed once, one denied), a read, and a key pasted in chat. */
async function auditedThread() {
  const w = testTool('click', { effects: 'write' });
  const r = testTool('look', { effects: 'read' });
  const rig = await makeRig({
    script: [
      { toolCalls: [{ name: 'look', args: {} }] },
      { toolCalls: [{ name: 'click', args: { value: 'buy' } }] },
      { toolCalls: [{ name: 'click', args: { value: 'again' } }] },
      { text: 'Done.' },
    ],
    tools: [w, r],
  });
  await rig.client.ack({
    type: 'settings.update',
    patch: { providers: [{ id: 'p1', kind: 'openai', apiKey: 'my-own-proxy-secret-123456' }] },
  });
  const { threadId, runId } = await rig.submit('buy it; my key is my-own-proxy-secret-123456');
  const first = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
  await rig.client.ack({
    type: 'approval.response',
    approvalId: first.approvalId,
    decision: 'allow_once',
  });
  const second = (await rig.client.waitFor(
    (e) => e.type === 'approval.request' && e.approvalId !== first.approvalId,
  )) as ApprovalReq;
  await rig.client.ack({
    type: 'approval.response',
    approvalId: second.approvalId,
    decision: 'deny',
    reason: 'not twice',
  });
  await rig.client.turnComplete(runId);
  const exported = await rig.client.ack<Exported>({ type: 'thread.export', threadId });
  return { exported, first, second };
}

describe('thread export for an audit', () => {
  it('lists each approval with its decision, scope and who decided, and each step with a duration', async () => {
    const { exported, first, second } = await auditedThread();
    expect(exported.approvals).toEqual([
      expect.objectContaining({
        approvalId: first.approvalId,
        tool: 'click',
        decision: 'allow_once',
        scope: 'once',
        decidedBy: 'user',
        status: 'resolved',
      }),
      expect.objectContaining({
        approvalId: second.approvalId,
        decision: 'deny',
        decidedBy: 'user',
        decisionReason: 'not twice',
      }),
    ]);
    for (const a of exported.approvals) expect(a.waitedMs).toBeGreaterThanOrEqual(0);
    const tools = exported.steps.filter((s) => s.kind === 'tool_call');
    expect(tools.map((s) => [s.tool, s.decidedBy, s.outcome])).toEqual([
      ['look', 'policy', 'ok'],
      ['click', 'user', 'ok'],
      ['click', 'user', 'denied'],
    ]);
    for (const s of exported.steps) {
      expect(typeof s.durationMs).toBe('number');
      expect(s.durationMs as number).toBeGreaterThanOrEqual(0);
    }
    expect(exported.steps).toHaveLength(exported.nodes.length);
    // Redacted before it left the engine: the JSON and the Markdown made from it.
    expect(JSON.stringify(exported)).not.toContain('my-own-proxy-secret-123456');
    expect(exported.redactedSecrets).toBeGreaterThan(0);
  });

  it('renders readable Markdown in both languages, without secrets', async () => {
    const { exported } = await auditedThread();
    i18nStore.set({ locale: 'en', active: en, english: en });
    const md = threadMarkdown(exported);
    expect(md).toContain('## Conversation');
    expect(md).toContain('**You**');
    expect(md).toContain('Done.');
    expect(md).toMatch(/\| `click` \| .* \| Allow once \| you \| \d+\.\d s \|/);
    expect(md).toMatch(/\| `click` \| .* \| Deny \| you \|/);
    expect(md).toMatch(/- .*look \(`look`\) — ok · \d+\.\d s · site rules \(not asked\)/);
    expect(md).not.toContain('my-own-proxy-secret-123456');
    i18nStore.set({ locale: 'zh-CN', active: zh, english: en });
    const mdZh = threadMarkdown(exported);
    expect(mdZh).toContain('## 对话');
    expect(mdZh).toContain(zh.approveAllowOnce.message);
    expect(mdZh).toContain('## 批准记录');
    i18nStore.set({ locale: 'en', active: en, english: en });
  });

  it('survives odd input and names files safely', () => {
    i18nStore.set({ locale: 'en', active: en, english: en });
    expect(() => threadMarkdown(null)).not.toThrow();
    expect(
      threadMarkdown({
        thread: { title: 'x', leafId: 'n2' },
        nodes: [
          { id: 'n1', parentId: 'n2', item: { kind: 'notice', text: 'loop' } },
          { id: 'n2', parentId: 'n1', item: { kind: 'notice', text: 'a|b' } },
        ],
      }),
    ).toContain('a\\|b');
    expect(exportFileName({ thread: { title: '../Shop: 买 milk?' } }, 'md')).toBe(
      'keel-Shop-买-milk.md',
    );
    expect(exportFileName({ thread: { threadId: 't1' } }, 'json')).toBe('keel-t1.json');
  });
});
