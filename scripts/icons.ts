/**
 * Renders the extension's PNG icons from their SVG sources in icons/ with headless Chromium (the
 * browser the tests use), so the PNGs never drift from the drawing:
 *
 *   npm run icons
 *
 * keel.svg is the store and extensions-page mark (48, 128 px); keel-small.svg is the same mark
 * redrawn for small sizes (16, 32 px, and the toolbar action at 16, 24, 32 px), where the
 * waterline and gradient would blur into the hull.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumExecutable } from '../test/e2e/harness/launch-extension';

const ICONS = resolve(import.meta.dirname, '..', 'icons');

/** [source, size, output]: every PNG the manifest names. */
export const RENDERS: ReadonlyArray<readonly [string, number, string]> = [
  ['keel-small.svg', 16, 'icon-16.png'],
  ['keel-small.svg', 32, 'icon-32.png'],
  ['keel.svg', 48, 'icon-48.png'],
  ['keel.svg', 128, 'icon-128.png'],
  ['keel-small.svg', 16, 'action-16.png'],
  ['keel-small.svg', 24, 'action-24.png'],
  ['keel-small.svg', 32, 'action-32.png'],
];

const browser = await chromium.launch({
  executablePath: chromiumExecutable(),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const [source, size, out] of RENDERS) {
    const svg = readFileSync(join(ICONS, source), 'utf8');
    await page.setViewportSize({ width: size, height: size });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}img{display:block}</style><img width="${size}" height="${size}" src="${src}">`,
    );
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    await page.screenshot({
      path: join(ICONS, out),
      omitBackground: true,
      clip: { x: 0, y: 0, width: size, height: size },
    });
    console.log(`icons/${out} (${size}×${size}) from icons/${source}`);
  }
} finally {
  await browser.close();
}
