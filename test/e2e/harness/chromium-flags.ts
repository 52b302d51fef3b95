import { existsSync } from 'node:fs';

/** The switches every e2e Chromium gets (TOOLCHAIN.md); extension loading is added per launch. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser the tests drive: `CHROMIUM_PATH`, else Debian's package. */
export function chromiumExecutable(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}: run \`node scripts/ensure-chromium.mjs\` or set CHROMIUM_PATH.`,
    );
  }
  return path;
}
