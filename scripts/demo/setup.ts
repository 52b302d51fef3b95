/**
 * What the demo and the benchmarks need before they start: a dist/ at least as new as the sources
 * (built with `npm run build` when it is missing or stale) and Chromium (scripts/ensure-chromium.mjs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = join(REPO_ROOT, 'dist');

/** Everything the build reads. */
const SOURCES = [
  'src',
  'sidepanel',
  'content-scripts',
  'public',
  '_locales',
  'manifest.json',
  'vite.config.ts',
  'package.json',
  'scripts/build-content-script.mjs',
];

function newestMtime(path: string): { ms: number; file: string } {
  if (!existsSync(path)) return { ms: 0, file: path };
  const st = statSync(path);
  if (!st.isDirectory()) return { ms: st.mtimeMs, file: path };
  let best = { ms: 0, file: path };
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const sub = newestMtime(join(path, name));
    if (sub.ms > best.ms) best = sub;
  }
  return best;
}

/** Why dist/ needs a build, or null when it is up to date. */
export function staleReason(dist = DIST): string | null {
  const manifest = join(dist, 'manifest.json');
  if (!existsSync(manifest)) return `${manifest} is missing`;
  const built = statSync(manifest).mtimeMs;
  for (const s of SOURCES) {
    const newest = newestMtime(join(REPO_ROOT, s));
    if (newest.ms > built)
      return `${newest.file.slice(REPO_ROOT.length + 1)} is newer than the build`;
  }
  return null;
}

/** Builds dist/ when stale. A failed build with an older dist/ still there is a warning, not an error. */
export function ensureBuilt(log: (s: string) => void, dist = DIST): void {
  const why = staleReason(dist);
  if (!why) {
    log(`dist/ is up to date`);
    return;
  }
  log(`building the extension (${why}): npm run build`);
  const r = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status === 0) return;
  if (existsSync(join(dist, 'manifest.json'))) {
    log(`warning: the build failed (exit ${r.status}); using the existing dist/`);
    return;
  }
  throw new Error(`the build failed (exit ${r.status}) and there is no dist/ to fall back on`);
}

/** Runs scripts/ensure-chromium.mjs (installs Debian's chromium as root when missing) and returns the path. */
export function ensureChromium(): string {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/ensure-chromium.mjs')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0)
    throw new Error('Chromium is not available (see the ensure-chromium message above)');
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** The installed Chromium's version string ("Chromium 156.0.…"). */
export function chromiumVersion(path = process.env.CHROMIUM_PATH || '/usr/bin/chromium'): string {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return (r.stdout ?? '').trim().split('\n')[0] || 'unknown';
}
