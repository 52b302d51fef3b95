/** Debian's Chromium through playwright-core, headless, with the flags TOOLCHAIN.md lists. */
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from 'playwright-core';
import { sharingEnabled } from '../../harness/shared-browser';
import { sharedPlainBrowser } from '../../harness/shared-plain-browser';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Under vitest, a default launch borrows the test worker's shared browser (its `close()` closes
 * only the contexts this handle made); scripts and launches with options get their own.
 */
export function launchChromium(extra: LaunchOptions = {}): Promise<Browser> {
  const launch = () =>
    chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      ...extra,
    });
  const shareable = process.env.VITEST && Object.keys(extra).length === 0 && sharingEnabled();
  return shareable ? sharedPlainBrowser(launch) : launch();
}

/** A persistent context with an unpacked extension loaded (the extension tier of the tests). */
export function launchWithExtension(
  userDataDir: string,
  extensionDir: string,
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
    ],
  });
}
