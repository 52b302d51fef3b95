import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EverythingServer } from '../../fixtures/mcp/everything-server';
import type { RecordedRequest } from '../harness';

/**
 * Helpers for the MCP e2e test: the real reference server with a kill switch for every way the
 * test process can end, the server's own view of its tools, and what the model received (OpenAI
 * Chat Completions bodies, as the scripted endpoint recorded them).
 */

/**
 * server-everything on a free port with a clean environment (test/fixtures/mcp). Also killed
 * when the test process exits without reaching `afterAll` (the server binds every interface).
 */
export async function startEverything(): Promise<EverythingServer> {
  const server = await EverythingServer.start();
  // kill() signals synchronously, so it still works inside an 'exit' handler.
  const onExit = () => void server.kill();
  process.once('exit', onExit);
  return server;
}

/** The server's tool list as a plain MCP client sees it (the reference for what the model gets). */
export async function listServerTools(url: string): Promise<Tool[]> {
  const client = new Client({ name: 'keel-e2e-reference', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

export const isTitleRequest = (r: RecordedRequest): boolean =>
  JSON.stringify(r.body).includes('You write titles');

interface ChatTool {
  type: string;
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** The function tools a Chat Completions request offered, by name. */
export function offeredTools(r: RecordedRequest): Map<string, ChatTool['function']> {
  const tools = (r.body.tools ?? []) as ChatTool[];
  return new Map(tools.map((t) => [t.function.name, t.function]));
}

type ChatMessage = { role: string; content: unknown; tool_call_id?: string };

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('\n');
  return '';
}

/** The text of the request's tool-result messages, oldest first. */
export function toolMessages(r: RecordedRequest): string[] {
  const messages = (r.body.messages ?? []) as ChatMessage[];
  return messages.filter((m) => m.role === 'tool').map((m) => messageText(m.content));
}

/** The last tool result the model received in this request. */
export function lastToolMessage(r: RecordedRequest): string {
  return toolMessages(r).at(-1) ?? '';
}
