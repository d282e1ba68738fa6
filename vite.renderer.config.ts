/**
 * Vite config of the console renderer. Used by `npm run build:renderer`, by the web host's
 * on-demand build (electron/web/renderer-build.ts) and by scripts/build-electron.mjs.
 * The output has no inline scripts or styles, so it runs under the hosts' strict CSP.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Kept at the top level, not in renderer/: this file runs in Node, the renderer has no Node.
const root = fileURLToPath(new URL('./renderer/', import.meta.url));

export default defineConfig({
  root,
  // Relative asset URLs work both from the web host (http://127.0.0.1:<port>/) and from the
  // Electron app protocol (app://switchboard/).
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill is for old browsers; both hosts are current Chromium.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    // The bundle is loaded from this machine (web host on loopback, or app:// from the asar),
    // never over a network, so one ~600 kB chunk (React + recharts) costs nothing worth a split;
    // the warning would also land on the console's stderr, which is its user interface.
    chunkSizeWarningLimit: 1_500,
  },
});
