import type {
  ApprovalRequest,
  AssistantMessageItem,
  Item,
  NoticeItem,
  PublicSettings,
  ThreadMeta,
  ThreadSnapshot,
  ToolCallItem,
  ToolResultItem,
  UserMessageItem,
} from '../../../../src/protocol';

let clock = 1_700_000_000_000;
const now = () => (clock += 1000);

export function settings(over: Partial<PublicSettings> = {}): PublicSettings {
  return {
    providers: [
      {
        id: 'anthropic',
        kind: 'anthropic',
        hasApiKey: true,
        label: 'Anthropic',
        models: [{ id: 'claude-x', vision: true }],
      },
    ],
    defaultModel: { providerId: 'anthropic', model: 'claude-x' },
    taskModel: null,
    tokenBudget: null,
    approvalMode: 'ask',
    locale: null,
    mcpServers: [],
    siteRules: [],
    ...over,
  };
}

export function meta(threadId: string, over: Partial<ThreadMeta> = {}): ThreadMeta {
  return {
    threadId,
    title: `Thread ${threadId}`,
    createdAt: now(),
    updatedAt: now(),
    leafId: null,
    ...over,
  };
}

export function snapshot(
  threadId: string,
  path: Item[],
  over: Partial<ThreadSnapshot> = {},
): ThreadSnapshot {
  return { thread: meta(threadId), path, queue: [], todos: [], branches: [], ...over };
}

export const user = (
  id: string,
  text: string,
  over: Partial<UserMessageItem> = {},
): UserMessageItem => ({
  id,
  kind: 'user_message',
  createdAt: now(),
  text,
  ...over,
});

export const assistant = (
  id: string,
  text: string,
  over: Partial<AssistantMessageItem> = {},
): AssistantMessageItem => ({
  id,
  kind: 'assistant_message',
  createdAt: now(),
  text,
  providerStopReason: 'end',
  ...over,
});

export const toolCall = (
  id: string,
  state: ToolCallItem['state'],
  over: Partial<ToolCallItem> = {},
): ToolCallItem => ({
  id,
  kind: 'tool_call',
  createdAt: now(),
  toolCallId: `tc-${id}`,
  name: 'browser_click',
  label: 'Click',
  params: { ref: 'e41' },
  state,
  ...over,
});

export const toolResult = (
  id: string,
  toolCallId: string,
  over: Partial<ToolResultItem> = {},
): ToolResultItem => ({
  id,
  kind: 'tool_result',
  createdAt: now(),
  toolCallId,
  ok: true,
  content: [{ type: 'text', text: 'Clicked “Add to cart”.' }],
  ...over,
});

export const notice = (id: string, text: string): NoticeItem => ({
  id,
  kind: 'notice',
  createdAt: now(),
  code: 'tool_failures',
  text,
});

export function approvalRequest(
  threadId: string,
  over: Partial<ApprovalRequest> = {},
): ApprovalRequest {
  return {
    type: 'approval.request',
    threadId,
    runId: 'run-1',
    approvalId: 'ap-1',
    toolCallId: 'tc-c1',
    tool: { name: 'browser_click', label: 'Click', level: 'L1', effects: 'write' },
    params: { ref: 'e41', element: 'Add to cart' },
    target: {
      tabId: 7,
      url: 'https://shop.example/cart',
      origin: 'https://shop.example',
      title: 'Shop — Cart',
    },
    options: ['allow_once', 'allow_site', 'deny', 'deny_stop'],
    ...over,
  };
}
