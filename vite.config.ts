import { defineConfig } from 'vite';
import { crx } from '@crxjs/vite-plugin';
import manifest from './manifest.json' with { type: 'json' };
import pkg from './package.json' with { type: 'json' };

export default defineConfig({
  // package.json is the one place the version is written (`npm run package` checks the result).
  plugins: [crx({ manifest: { ...manifest, version: pkg.version } })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The service worker may not use dynamic import() (TOOLCHAIN.md): keep every chunk static.
    modulePreload: false,
    sourcemap: false,
    target: 'chrome116',
  },
  server: { host: '127.0.0.1' },
});
