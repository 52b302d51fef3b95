import type { ContentBlock } from '../protocol';
import type { ProviderRequest } from './types';

/** Helpers the three request builders share. */

/** What a request builder reads: the request without its AbortSignal (builders are pure). */
export type RequestInput = Omit<ProviderRequest, 'signal'>;

export type ImageBlock = Extract<ContentBlock, { type: 'image' }>;
type JsonObject = { [key: string]: unknown };
export type SupportedImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

const SUPPORTED_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

/** The image formats all three APIs accept; anything else becomes a text placeholder. */
export function supportedImageType(mimeType: string): SupportedImageType | undefined {
  const normalized = mimeType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : mimeType.toLowerCase();
  return SUPPORTED_IMAGE_TYPES.has(normalized) ? (normalized as SupportedImageType) : undefined;
}

export function unsupportedImageText(block: ImageBlock): string {
  return `[image omitted: unsupported format ${block.mimeType}]`;
}

export function imageDataUrl(block: ImageBlock, mediaType: SupportedImageType): string {
  return `data:${mediaType};base64,${block.dataBase64}`;
}

/** Tool-call arguments as the APIs want them back: always a JSON object. */
export function argsObject(args: unknown): JsonObject {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as JsonObject)
    : {};
}

/** The text blocks of a tool result joined, for APIs whose tool output is a single string. */
export function joinText(content: readonly ContentBlock[]): string {
  return content
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** JSON Schema of a tool's parameters, with `type: 'object'` the APIs require at the top level. */
export function objectSchema(schema: JsonObject): { type: 'object'; [key: string]: unknown } {
  return { ...schema, type: 'object' };
}
