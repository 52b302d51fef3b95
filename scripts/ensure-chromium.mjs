#!/usr/bin/env node
// Makes sure the e2e tests have a Chromium to drive (TOOLCHAIN.md): CHROMIUM_PATH if set, else
// Debian's /usr/bin/chromium, installing it with apt-get when we run as root (CI on a fresh
// machine). Never downloads a browser any other way.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

function fail(message) {
  console.error(`ensure-chromium: ${message}`);
  process.exit(1);
}

function run(cmd, args) {
  console.log(`ensure-chromium: $ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function findOrInstall() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    // An explicit choice that is wrong is an error, not a reason to silently use another browser.
    if (!existsSync(fromEnv)) fail(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (process.getuid?.() !== 0) {
    fail(
      `no Chromium found at ${DEBIAN_CHROMIUM} and not running as root, so it cannot be installed.\n` +
        `  Install it with:  sudo apt-get update && sudo apt-get install -y chromium\n` +
        `  or point CHROMIUM_PATH at a Chromium or Chrome binary.`,
    );
  }
  console.log(
    `ensure-chromium: ${DEBIAN_CHROMIUM} is missing; installing Debian's chromium package.`,
  );
  run('apt-get', ['update']);
  // A CJK font too: the side panel's 简体中文 screenshots would show empty boxes without one.
  run('apt-get', ['install', '-y', 'chromium', 'fonts-wqy-microhei']);
  if (!existsSync(DEBIAN_CHROMIUM))
    fail(`apt-get finished but ${DEBIAN_CHROMIUM} is still missing.`);
  return DEBIAN_CHROMIUM;
}

/** Where Chromium already exists but no CJK font does (root only; best effort, never fatal). */
function ensureCjkFont() {
  if (process.getuid?.() !== 0) return;
  try {
    const fonts = execFileSync('fc-list', [':lang=zh'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    if (fonts.trim()) return;
  } catch {
    /* no fontconfig tools: try installing */
  }
  try {
    run('apt-get', ['install', '-y', '--no-install-recommends', 'fonts-wqy-microhei']);
  } catch {
    console.log(
      'ensure-chromium: could not install a CJK font; Chinese text in screenshots may show as boxes.',
    );
  }
}

const executable = findOrInstall();
ensureCjkFont();
let version;
try {
  version = execFileSync(executable, ['--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
} catch (err) {
  fail(`${executable} does not run: ${err instanceof Error ? err.message : String(err)}`);
}
console.log(`ensure-chromium: using ${executable} (${version})`);
