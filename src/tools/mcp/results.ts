import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../../protocol';
import type { ToolResult } from '../types';
import type { McpToolDetails } from './types';

/**
 * An MCP tool result as the model sees it. Text passes through (the engine wraps MCP output as
 * untrusted data); images become image blocks only for a model with vision, otherwise a
 * placeholder that says why; audio, blobs and resource links are summarized as text. `isError`
 * stays an error result the model can correct itself from. `details` (UI only) never carries
 * binary data, so a result does not bloat the thread's storage.
 */

/** Image types every provider accepts. */
const VISION_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_TEXT_CHARS = 100_000;

export interface ResultOptions {
  serverId: string;
  serverTool: string;
  vision: boolean;
}

export function toToolResult(
  result: CallToolResult,
  opts: ResultOptions,
): ToolResult<McpToolDetails> {
  const content: ContentBlock[] = [];
  const omitted: NonNullable<McpToolDetails['omitted']> = [];
  let budget = MAX_TEXT_CHARS;
  let truncated = false;
  const text = (t: string) => {
    if (budget <= 0) {
      truncated = true;
      return;
    }
    const kept =
      t.length > budget ? `${t.slice(0, budget)}\n[… ${t.length - budget} more characters cut]` : t;
    if (kept !== t) truncated = true;
    budget -= Math.min(t.length, budget);
    content.push({ type: 'text', text: kept });
  };

  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        text(block.text);
        break;
      case 'image': {
        const bytes = base64Bytes(block.data);
        if (opts.vision && VISION_TYPES.has(block.mimeType) && bytes <= MAX_IMAGE_BYTES) {
          content.push({ type: 'image', mimeType: block.mimeType, dataBase64: block.data });
        } else {
          const why = !opts.vision
            ? 'this model cannot see images'
            : bytes > MAX_IMAGE_BYTES
              ? 'too large'
              : 'unsupported image type';
          text(`[image: ${block.mimeType}, ${bytes} bytes — not shown: ${why}]`);
          omitted.push({ type: 'image', mimeType: block.mimeType, bytes });
        }
        break;
      }
      case 'audio': {
        const bytes = base64Bytes(block.data);
        text(`[audio: ${block.mimeType}, ${bytes} bytes — not shown: audio is not supported]`);
        omitted.push({ type: 'audio', mimeType: block.mimeType, bytes });
        break;
      }
      case 'resource_link': {
        const about = [block.mimeType, block.description].filter(Boolean).join('; ');
        text(
          `[resource link: ${block.title ?? block.name} <${block.uri}>${about ? ` (${about})` : ''}]`,
        );
        break;
      }
      case 'resource': {
        const r = block.resource;
        if ('text' in r && typeof r.text === 'string') {
          text(`[resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}`);
        } else if ('blob' in r && typeof r.blob === 'string') {
          const bytes = base64Bytes(r.blob);
          text(
            `[resource <${r.uri}>: ${r.mimeType ?? 'binary'}, ${bytes} bytes — binary content not shown]`,
          );
          omitted.push({ type: 'resource', mimeType: r.mimeType, bytes, uri: r.uri });
        }
        break;
      }
      default:
        text(`[unsupported content: ${(block as { type: string }).type}]`);
    }
  }

  const structured = result.structuredContent;
  // Servers should mirror structured content as text; when they send only the structure, show it.
  if (structured && content.length === 0) text(JSON.stringify(structured));
  if (content.length === 0)
    text(result.isError ? 'The tool failed without a message.' : 'The tool returned no content.');

  const details: McpToolDetails = { serverId: opts.serverId, serverTool: opts.serverTool };
  if (result.isError) details.isError = true;
  if (structured) details.structuredContent = structured;
  if (omitted.length > 0) details.omitted = omitted;
  if (truncated) details.truncated = true;
  return { content, details, ...(result.isError ? { isError: true } : {}) };
}

/** Decoded size of base64 text. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
