import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSON_HEADERS, SSE_HEADERS, type PlannedResponse } from './mock-server';

/**
 * The recorded SSE corpus (copied into the repository with its sources and licenses, see
 * test/fixtures/sse/INDEX.md) and the provider fixtures we wrote for its gaps.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../../../..');
export const CORPUS_DIR = path.resolve(REPO_ROOT, 'test/fixtures/sse');
export const FIXTURES_DIR = path.resolve(REPO_ROOT, 'test/fixtures/providers');

/**
 * The corpus folder of one vendor. Throws when it is missing, so a test whose data is gone fails
 * with a message that says where the data should be instead of passing over nothing.
 */
export function corpusDir(vendor: 'anthropic' | 'openai'): string {
  const dir = path.join(CORPUS_DIR, vendor);
  if (!fs.existsSync(dir)) {
    throw new Error(
      `recorded SSE corpus missing: ${dir} (it is part of the repository; restore it from git)`,
    );
  }
  return dir;
}

export function corpusFiles(vendor: 'anthropic' | 'openai'): string[] {
  return fs
    .readdirSync(corpusDir(vendor))
    .filter((name) => /\.(sse|jsonl|json)$/.test(name))
    .sort();
}

/**
 * A `*.chunks.jsonl` file as SSE (corpus INDEX.md): Anthropic and Responses payloads get an
 * `event:` line named after their `type`; Chat Completions payloads are bare `data:` lines
 * followed by `data: [DONE]`.
 */
export function jsonlToSse(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = JSON.parse(lines[0]) as { object?: string };
  if (first.object === 'chat.completion.chunk') {
    return lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n';
  }
  return lines
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join('');
}

/** The HTTP response that replays a corpus or fixture file. 401 bodies are `*.json`. */
export function responseForFile(filePath: string, status = 401): PlannedResponse {
  const text = fs.readFileSync(filePath, 'utf8');
  if (filePath.endsWith('.json')) return { status, headers: JSON_HEADERS, body: text };
  if (filePath.endsWith('.jsonl')) return { headers: SSE_HEADERS, body: jsonlToSse(text) };
  return { headers: SSE_HEADERS, body: text };
}

export const corpusPath = (vendor: 'anthropic' | 'openai', file: string) =>
  path.join(corpusDir(vendor), file);
export const fixturePath = (file: string) => path.join(FIXTURES_DIR, file);

/**
 * The JSON payloads of a corpus stream, parsed directly from the file: an oracle independent of
 * the SDKs and of our normalizers, used to derive long expected texts.
 */
export function payloads(vendor: 'anthropic' | 'openai', file: string): Record<string, unknown>[] {
  const text = fs.readFileSync(corpusPath(vendor, file), 'utf8');
  const lines = file.endsWith('.jsonl')
    ? text.split('\n')
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim());
  return lines.filter((line) => line !== '' && line !== '[DONE]').map((line) => JSON.parse(line));
}

/** The value at a path of nested objects/arrays, or undefined. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** Concatenates the strings `pick` returns over a file's payloads (anything else is skipped). */
export function concatPayloads(
  vendor: 'anthropic' | 'openai',
  file: string,
  pick: (payload: Record<string, unknown>) => unknown,
): string {
  return payloads(vendor, file)
    .map((payload) => pick(payload))
    .filter((value): value is string => typeof value === 'string')
    .join('');
}

/** A `*.response.json` fixture (`{ status, headers, body }`) as a planned HTTP answer. */
export function responseFixture(file: string): PlannedResponse {
  const { status, headers, body } = JSON.parse(fs.readFileSync(fixturePath(file), 'utf8')) as {
    status: number;
    headers: Record<string, string>;
    body: unknown;
  };
  return { status, headers, body: JSON.stringify(body) };
}

/** A `.sse` fixture of ours as a planned stream. */
export const sseFixture = (file: string): PlannedResponse => responseForFile(fixturePath(file));
