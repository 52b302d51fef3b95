#!/usr/bin/env node
/**
 * Bundles the content script as one self-contained classic script (IIFE) into dist/ and declares
 * it in dist/manifest.json. Run after `vite build`:
 *
 *   vite build && node scripts/build-content-script.mjs
 *
 * Why not let @crxjs do it: when the content script shares modules with another entry (zod with
 * the service worker), crxjs emits an ES-module loader that dynamic-imports chunks listed in
 * web_accessible_resources. A content script must be a classic script, and we keep
 * web_accessible_resources minimal (pages can fingerprint and load what is listed there).
 *
 * Options: --out-dir DIR (default dist), --no-manifest (only write the bundle), --dev (no minify).
 */
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTENT_SCRIPT_FILE = 'content-script.js';
/** WebMCP's registry in the page's own world (content-scripts/webmcp/page-registry.ts). */
export const PAGE_WORLD_FILE = 'webmcp-page-world.js';
/** The input guard, before any page script (content-scripts/input-guard.ts). */
export const INPUT_GUARD_FILE = 'input-guard.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outDir = resolve(
  root,
  args.includes('--out-dir') ? args[args.indexOf('--out-dir') + 1] : 'dist',
);
const writeManifest = !args.includes('--no-manifest');
const minify = !args.includes('--dev');

mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, CONTENT_SCRIPT_FILE);
const pageWorldFile = join(outDir, PAGE_WORLD_FILE);
const bundles = [
  [join(root, 'content-scripts/index.ts'), outFile],
  [join(root, 'content-scripts/webmcp/page-registry.ts'), pageWorldFile],
  [join(root, 'content-scripts/input-guard-entry.ts'), join(outDir, INPUT_GUARD_FILE)],
];
for (const [entry, out] of bundles) {
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome116',
    minify,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const code = readFileSync(out, 'utf8');
  // A classic script must not contain module syntax; fail the build rather than ship a loader.
  if (/^\s*(import|export)\s/m.test(code) || /\bimport\(/.test(code)) {
    console.error(`${out}: the content-script bundle contains module syntax`);
    process.exit(1);
  }
}
const code = readFileSync(outFile, 'utf8');

if (writeManifest) {
  const manifestPath = join(outDir, 'manifest.json');
  if (!existsSync(manifestPath)) {
    console.error(`${manifestPath} not found: run vite build first`);
    process.exit(1);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const replaced = new Set((manifest.content_scripts ?? []).flatMap((c) => c.js ?? []));
  manifest.content_scripts = [
    {
      // Before any page script, in every frame (about:blank and srcdoc ones too): its window
      // capture listeners must come first (content-scripts/input-guard.ts).
      matches: ['http://*/*', 'https://*/*'],
      js: [INPUT_GUARD_FILE],
      run_at: 'document_start',
      all_frames: true,
      match_about_blank: true,
    },
    {
      matches: ['http://*/*', 'https://*/*'],
      js: [CONTENT_SCRIPT_FILE],
      run_at: 'document_idle',
      all_frames: true,
    },
    {
      // Before any page script, so a page's WebMCP registrations are seen from the start.
      matches: ['http://*/*', 'https://*/*'],
      js: [PAGE_WORLD_FILE],
      run_at: 'document_start',
      world: 'MAIN',
    },
  ];
  // If manifest.json still declares the TypeScript entry, crxjs added a loader and listed the
  // chunks it imports as web-accessible. Those are dead now: drop every entry that only served
  // them (the chunks reachable from the old loader; other entries import chunks directly).
  if (replaced.size && Array.isArray(manifest.web_accessible_resources)) {
    const reachable = new Set();
    const queue = [...replaced];
    while (queue.length) {
      const file = queue.pop();
      if (reachable.has(file)) continue;
      reachable.add(file);
      const path = join(outDir, file);
      if (!existsSync(path)) continue;
      const code = readFileSync(path, 'utf8');
      for (const m of code.matchAll(/getURL\(\s*["'`]\/?(assets\/[^"'`]+\.js)["'`]/g))
        queue.push(m[1]);
      for (const m of code.matchAll(/(?:from|import\(?)\s*["'`]\.\/([^"'`]+\.js)["'`]/g))
        queue.push(`assets/${m[1]}`);
    }
    manifest.web_accessible_resources = manifest.web_accessible_resources.filter(
      (entry) => !(entry.resources ?? []).every((r) => reachable.has(r.replace(/^\//, ''))),
    );
    if (!manifest.web_accessible_resources.length) delete manifest.web_accessible_resources;
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

console.log(`content script: ${outFile} (${(code.length / 1024).toFixed(1)} KB)`);
