// Builds what Footfall runs: the `footfall` command (CLI, ingest gateway, query service) bundled by
// esbuild into plain JavaScript in packages/cli/dist, so `node` runs it with no TypeScript loader.
// `pnpm install` runs it (the root `prepare` script); `pnpm build` runs it again after a change.
//
// - Every workspace package and every npm dependency is bundled, except NATIVE_PACKAGES (native
//   code, and the card drawing's satori and font), which stay packages installed beside the
//   bundle: they are the CLI package's own dependencies.
// - The card pool's worker is its own entry, dist/card-worker.mjs.
// - The gateway and the query service are separate chunks that `footfall ingest` and `footfall
//   query` load on demand, so the gateway never loads DuckDB.
// - The browser tracker is built here, once per build (each variant, with and without the consent
//   bar), and the bundle carries the results in place of the esbuild call that builds it from
//   source (packages/tracker/src/build.ts).
// - The VERSION file's content is written into the bundle.
// - The dashboard (apps/dashboard, Vite + Preact) is built into packages/cli/dist/dashboard, where
//   the query service serves it from; its API types are generated from docs/openapi.yaml first.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import openapiTS, { astToString } from 'openapi-typescript';
import { build as viteBuild } from 'vite';
import { buildAddon, buildTracker } from '../packages/tracker/src/build.ts';
import { TRACKER_ADDONS, TRACKER_BUILDS } from '../packages/tracker/src/variants.ts';
import { NATIVE_PACKAGES } from './native-packages.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'packages/cli/dist');

/** The tracker's build module, replaced by its prebuilt output. */
const prebuiltTracker: Plugin = {
  name: 'prebuilt-tracker',
  setup(b) {
    const source = join(root, 'packages/tracker/src/build.ts');
    b.onResolve({ filter: /\/build\.ts$/ }, (args) => {
      const path = join(args.resolveDir, args.path);
      return path === source ? { path, namespace: 'prebuilt-tracker' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'prebuilt-tracker' }, () => {
      const built = Object.fromEntries(TRACKER_BUILDS.map((b) => [b, buildTracker(b)]));
      const addons = Object.fromEntries(TRACKER_ADDONS.map((a) => [a, buildAddon(a)]));
      return {
        contents: `const BUILT = ${JSON.stringify(built)};
const ADDONS = ${JSON.stringify(addons)};
export function buildTracker(build = 'default') { return BUILT[build]; }
export function buildAddon(addon) { return ADDONS[addon]; }`,
        loader: 'js',
      };
    });
  },
};

const started = performance.now();
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    footfall: join(root, 'packages/cli/src/main.ts'),
    // the card pool's worker thread (apps/query/src/cards/pool.ts finds it beside footfall.mjs)
    'card-worker': join(root, 'apps/query/src/cards/worker.ts'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  external: NATIVE_PACKAGES,
  plugins: [prebuiltTracker],
  define: {
    __FOOTFALL_VERSION__: JSON.stringify(readFileSync(join(root, 'VERSION'), 'utf8').trim()),
  },
  // bundled CommonJS dependencies call require() and read __dirname: give each ES module chunk both
  banner: {
    js: [
      "import { createRequire as __ffRequire } from 'node:module';",
      "import { fileURLToPath as __ffPath } from 'node:url';",
      "import { dirname as __ffDir } from 'node:path';",
      'const require = __ffRequire(import.meta.url);',
      'const __filename = __ffPath(import.meta.url);',
      'const __dirname = __ffDir(__filename);',
    ].join(' '),
  },
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: false,
});

// The dashboard: its typed API client reads types generated from the API's description.
const dashboard = join(root, 'apps/dashboard');
const types = astToString(await openapiTS(new URL(`file://${join(root, 'docs/openapi.yaml')}`)));
writeFileSync(
  join(dashboard, 'src/api/schema.d.ts'),
  `// Generated from docs/openapi.yaml by scripts/build.ts (openapi-typescript). Do not edit.\n${types}`,
);
await viteBuild({
  root: dashboard,
  configFile: join(dashboard, 'vite.config.ts'),
  logLevel: 'warn',
  build: { outDir: join(outdir, 'dashboard'), emptyOutDir: true, manifest: true },
});
// Compressed copies of the dashboard's text files, made once here so the query service sends them
// without compressing per request (apps/query/src/dashboard.ts picks br, then gzip).
for (const file of listFiles(join(outdir, 'dashboard'))) {
  if (!/\.(js|css|html|svg)$/.test(file)) continue;
  const body = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}
console.log(`built packages/cli/dist in ${Math.round(performance.now() - started)} ms`);

/** Every file under `dir`, with its path. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}
