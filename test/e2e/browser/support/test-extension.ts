/**
 * Builds a throwaway unpacked extension: the browser tools' service worker (ext/sw-entry.ts),
 * the production content script built by scripts/build-content-script.mjs, and a probe page.
 * The manifest content script matches only nav-*.html, so every other fixture page exercises
 * on-demand injection (chrome.scripting.executeScript).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './bundle';

export async function buildTestExtension(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'keel-ext-'));
  await build({
    entryPoints: {
      sw: join(REPO_ROOT, 'test/e2e/browser/ext/sw-entry.ts'),
      probe: join(REPO_ROOT, 'test/e2e/browser/ext/probe.ts'),
    },
    outdir: dir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome116',
    logLevel: 'warning',
  });
  execFileSync(
    process.execPath,
    [join(REPO_ROOT, 'scripts/build-content-script.mjs'), '--out-dir', dir, '--no-manifest'],
    { stdio: 'pipe' },
  );
  writeFileSync(
    join(dir, 'probe.html'),
    '<!doctype html><meta charset="utf-8"><title>probe</title><script src="probe.js"></script>',
  );
  const manifest = {
    manifest_version: 3,
    name: 'Keel browser tools (test)',
    version: '0.0.1',
    background: { service_worker: 'sw.js' },
    permissions: ['tabs', 'scripting', 'debugger', 'storage'],
    host_permissions: ['<all_urls>'],
    content_scripts: [
      {
        matches: ['http://*/nav-*'],
        js: ['content-script.js'],
        run_at: 'document_idle',
        all_frames: true,
      },
    ],
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}
