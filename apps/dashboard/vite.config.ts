import { defineConfig } from 'vite';

/**
 * The dashboard: Preact, built into dist/ (scripts/build.ts runs this build and copies the result
 * next to the built command; the query service serves it). `pnpm --filter @footfall/dashboard dev`
 * serves it with live reload and forwards the API to a running Footfall (FOOTFALL_URL, default
 * http://localhost:8080).
 */
export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    sourcemap: true,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/livez', '/js'].map((path) => [path, process.env.FOOTFALL_URL ?? 'http://localhost:8080']),
    ),
  },
});
