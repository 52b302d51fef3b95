/**
 * Builds the page agent as an IIFE for tests and the benchmark: the same code the extension
 * ships, entered through content-scripts/test-hook.ts (`window.__keelTest`) instead of
 * chrome.runtime, so it can be injected into any page with addScriptTag / addInitScript.
 */
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

let cached: Promise<string> | undefined;

export function pageAgentBundle(): Promise<string> {
  cached ??= build({
    entryPoints: [join(REPO_ROOT, 'content-scripts/test-hook.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome116',
    minify: true,
    logLevel: 'warning',
  }).then((r) => r.outputFiles[0].text);
  return cached;
}

/** The production content script (content-scripts/index.ts) as the extension loads it. */
export async function contentScriptBundle(): Promise<string> {
  const r = await build({
    entryPoints: [join(REPO_ROOT, 'content-scripts/index.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome116',
    minify: true,
    logLevel: 'warning',
  });
  return r.outputFiles[0].text;
}
