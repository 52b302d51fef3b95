/**
 * The Chrome Web Store package:
 *
 *   npm run package            builds a production dist/, then writes keel-<version>.zip
 *   npm run package -- --no-build   packages the dist/ that is there
 *
 * The zip holds dist/ with manifest.json at its root. It is refused (exit 1, nothing written) if
 * the build carries anything that must not ship: a source map or a sourceMappingURL comment, the
 * page-visible test hook (content-scripts/test-hook.ts, `window.__keelTest`), a manifest whose
 * version differs from package.json, a file the manifest names that is missing, or a permission
 * Chrome cannot grant as optional listed in `optional_permissions` (Chrome drops it without an
 * error, and the feature that needs it stops working: `debugger` is one).
 * docs/release.md says how to publish it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Zippable, zipSync } from 'fflate';

const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** Markers only a test build contains (content-scripts/test-hook.ts). */
const TEST_HOOK_MARKERS = ['__keelTest', 'test-hook'];

export type PackageCheck = { ok: true } | { ok: false; problems: string[] };

/**
 * Permissions Chrome refuses in `optional_permissions` (developer.chrome.com, chrome.permissions:
 * "Permissions that cannot be specified as optional"). Listed there they are ignored, and
 * chrome.permissions.request rejects them ("Only permissions specified in the manifest may be
 * requested"): the L2 tools would lose chrome.debugger in the shipped build. Only the one Keel
 * uses is listed (verified in Chromium); the docs name a few more.
 */
const CANNOT_BE_OPTIONAL = ['debugger'];

interface Manifest {
  version?: string;
  permissions?: string[];
  optional_permissions?: string[];
  icons?: Record<string, string>;
  action?: { default_icon?: Record<string, string> };
  background?: { service_worker?: string };
  side_panel?: { default_path?: string };
  content_scripts?: Array<{ js?: string[]; css?: string[] }>;
}

/** Every file path the manifest refers to (icons, worker, panel, content scripts). */
function referencedFiles(manifest: Manifest): string[] {
  return [
    ...Object.values(manifest.icons ?? {}),
    ...Object.values(manifest.action?.default_icon ?? {}),
    manifest.background?.service_worker,
    manifest.side_panel?.default_path,
    ...(manifest.content_scripts ?? []).flatMap((c) => [...(c.js ?? []), ...(c.css ?? [])]),
  ]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => p.replace(/^\//, ''));
}

/**
 * Whether a set of files (path relative to the package root → bytes) may be uploaded as Keel's
 * store package. Pure: `npm run package` and its test judge the same thing.
 */
export function checkPackage(
  files: ReadonlyMap<string, Uint8Array>,
  version: string,
): PackageCheck {
  const problems: string[] = [];
  const manifestBytes = files.get('manifest.json');
  if (!manifestBytes) return { ok: false, problems: ['manifest.json is not at the package root'] };
  const manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as Manifest;
  if (manifest.version !== version) {
    problems.push(`manifest version ${manifest.version} is not package.json's ${version}`);
  }
  for (const permission of manifest.optional_permissions ?? []) {
    if (CANNOT_BE_OPTIONAL.includes(permission)) {
      problems.push(`${permission} cannot be an optional permission: Chrome would drop it`);
    }
  }
  for (const path of referencedFiles(manifest)) {
    if (!files.has(path)) problems.push(`manifest.json names ${path}, which is not in the package`);
  }
  for (const [path, bytes] of files) {
    if (path.endsWith('.map')) problems.push(`source map ${path}`);
    if (!/\.(js|mjs|css|html|json)$/.test(path)) continue;
    const text = Buffer.from(bytes).toString('utf8');
    if (/[#@]\s*sourceMappingURL=/.test(text)) problems.push(`${path} points to a source map`);
    for (const marker of TEST_HOOK_MARKERS) {
      if (text.includes(marker)) problems.push(`${path} contains the test hook (${marker})`);
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true };
}

/** The files under `dir`, keyed by their `/`-separated path relative to it, in sorted order. */
export function readTree(dir: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path).split(sep).join('/'), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

export function packageVersion(root = REPO_ROOT): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/**
 * Zips `distDir` into `outFile` after checking it. Entries carry a fixed date, so the same build
 * gives the same bytes. Throws, writing nothing, if the check fails.
 */
export function packageDist(
  distDir: string,
  outFile: string,
  version: string,
): { files: number; bytes: number } {
  const files = readTree(distDir);
  const check = checkPackage(files, version);
  if (!check.ok)
    throw new Error(`refusing to package ${distDir}:\n- ${check.problems.join('\n- ')}`);
  const mtime = new Date('2000-01-01T00:00:00Z');
  const entries: Zippable = {};
  for (const [path, bytes] of files) entries[path] = [bytes, { mtime, level: 9 }];
  const zip = zipSync(entries);
  writeFileSync(outFile, zip);
  return { files: files.size, bytes: zip.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const version = packageVersion();
  if (!process.argv.includes('--no-build')) {
    execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
  const out = join(REPO_ROOT, `keel-${version}.zip`);
  try {
    const { files, bytes } = packageDist(join(REPO_ROOT, 'dist'), out, version);
    console.log(`${relative(REPO_ROOT, out)}: ${files} files, ${(bytes / 1024).toFixed(1)} KB`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
