/**
 * The store package (`npm run package`, issue 15), made from the dist/ that `npm test` built: the
 * zip is unpacked and read back, independently of the packager's own check. Then the packager
 * must refuse builds that carry a source map, the test hook, or the wrong version.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { packageDist, packageVersion } from '../../scripts/package';
import { DEFAULT_DIST } from './harness';

const work = mkdtempSync(join(tmpdir(), 'keel-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const version = packageVersion();

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes);
  expect(b.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('npm run package', () => {
  it('writes a zip with manifest.json at its root, the package.json version, icons, and nothing test-only', () => {
    if (!existsSync(join(DEFAULT_DIST, 'manifest.json'))) {
      throw new Error(
        `${DEFAULT_DIST} has no build: run \`npm run build\` first (\`npm test\` does).`,
      );
    }
    const out = join(work, `keel-${version}.zip`);
    packageDist(DEFAULT_DIST, out, version);
    const entries = unzipSync(readFileSync(out));
    const names = Object.keys(entries);

    expect(names).toContain('manifest.json');
    const manifest = JSON.parse(Buffer.from(entries['manifest.json']).toString('utf8'));
    expect(manifest.version).toBe(version);
    expect(manifest.manifest_version).toBe(3);
    // Chrome cannot grant `debugger` later (it may not be optional): the L2 tools need it here.
    expect(manifest.permissions).toContain('debugger');
    expect(manifest.optional_permissions ?? []).not.toContain('debugger');
    expect(manifest.commands?._execute_action?.suggested_key?.default).toBeTruthy();

    // Every icon the manifest names is in the zip, a PNG of the size it is listed under.
    const icons = {
      ...manifest.icons,
      ...Object.fromEntries(
        Object.entries(manifest.action.default_icon).map(([k, v]) => [`action-${k}`, v]),
      ),
    };
    expect(Object.keys(manifest.icons).sort()).toEqual(['128', '16', '32', '48']);
    for (const [key, path] of Object.entries(icons) as [string, string][]) {
      const size = Number(key.replace('action-', ''));
      expect(pngSize(entries[path]), path).toEqual({ width: size, height: size });
    }

    for (const name of names) {
      expect(name.endsWith('.map'), name).toBe(false);
      if (!/\.(js|css|html|json)$/.test(name)) continue;
      const text = Buffer.from(entries[name]).toString('utf8');
      expect(text, name).not.toMatch(/sourceMappingURL/);
      expect(text, name).not.toContain('__keelTest');
    }
  });

  it('refuses a build with a source map, the test hook, another version or an impossible optional permission, and writes nothing', () => {
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      [
        'source map',
        (dir) => writeFileSync(join(dir, 'assets', 'extra.js.map'), '{}'),
        /source map/,
      ],
      [
        'sourceMappingURL',
        (dir) =>
          writeFileSync(
            join(dir, 'content-script.js'),
            `${readFileSync(join(dir, 'content-script.js'), 'utf8')}\n//# sourceMappingURL=content-script.js.map\n`,
          ),
        /points to a source map/,
      ],
      [
        'test hook',
        (dir) => writeFileSync(join(dir, 'content-script.js'), 'window.__keelTest = {};'),
        /test hook/,
      ],
      [
        'version',
        (dir) => {
          const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
          writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...m, version: '9.9.9' }));
        },
        /manifest version 9\.9\.9/,
      ],
      [
        'debugger as optional',
        (dir) => {
          const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
          const permissions = m.permissions.filter((p: string) => p !== 'debugger');
          writeFileSync(
            join(dir, 'manifest.json'),
            JSON.stringify({ ...m, permissions, optional_permissions: ['debugger'] }),
          );
        },
        /debugger cannot be an optional permission/,
      ],
    ];
    for (const [name, spoil, problem] of cases) {
      const dir = join(work, name.replace(/\W+/g, '-'));
      cpSync(DEFAULT_DIST, dir, { recursive: true });
      spoil(dir);
      const out = join(work, `${name}.zip`);
      expect(() => packageDist(dir, out, version), name).toThrow(problem);
      expect(existsSync(out), name).toBe(false);
    }
  });
});
