import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/**
 * Country flags as small SVG images (flag-icons, MIT), drawn the same on every system (Windows
 * draws no flag emoji). Written as files under a versioned path, not bundled: a breakdown row asks
 * for its own flag only, and no flag costs the first view's JavaScript anything.
 */
const flagIcons = dirname(createRequire(import.meta.url).resolve('flag-icons/package.json'));
const FLAGS_VERSION = (
  JSON.parse(readFileSync(join(flagIcons, 'package.json'), 'utf8')) as { version: string }
).version;
const FLAGS_PATH = `assets/flags-${FLAGS_VERSION}`;
/** the two-letter codes that have a flag, lower case, one after another */
const FLAG_CODES = readdirSync(join(flagIcons, 'flags/4x3'))
  .filter((name) => /^[a-z]{2}\.svg$/.test(name))
  .map((name) => name.slice(0, 2))
  .sort();

function flags(): Plugin {
  return {
    name: 'footfall-flags',
    apply: 'build',
    generateBundle() {
      for (const code of FLAG_CODES) {
        const source = readFileSync(join(flagIcons, 'flags/4x3', `${code}.svg`));
        this.emitFile({ type: 'asset', fileName: `${FLAGS_PATH}/${code}.svg`, source });
      }
    },
  };
}

/** The modules of the first view: the app's own and the libraries it draws with. */
const FIRST_VIEW = /[\\/](dashboard[\\/]src|node_modules[\\/](preact|@preact|uplot))[\\/]/;
/** Screens and panels loaded later (and the upload helper of Settings), and the catalogues of their areas and of other languages. */
const LATER =
  /[\\/]src[\\/](settings[\\/]|share[\\/]|api[\\/]upload\.|screens[\\/](AddSite|AllSites|Health|Setup|NewPassword|SsoRefusal)|sites[\\/](ArrangeSites|SiteFields|ProxyKey|IgnoreMyVisits|SiteTag)|site[\\/](Segments|LiveView|InstallScreen|PeopleNow|Journey|Feed|BelowFold|AiSearch|Charts|Funnels|Goals|Heatmap|Moments|Retention|Robots|Vitals)\.|i18n[\\/](account|allSites|connections|siteSettings|health|share|panels|sso)\.|i18n[\\/](en|de|fr|es)[\\/](account|allSites|connections|siteSettings|health|share|panels|sso)\.|i18n[\\/](de|fr|es)[\\/])/;

/**
 * The dashboard: Preact, built into dist/ (scripts/build.ts runs this build and copies the result
 * next to the built command; the query service serves it). `pnpm --filter @footfall/dashboard dev`
 * serves it with live reload and forwards the API to a running Footfall (FOOTFALL_URL, default
 * http://localhost:8080).
 */
export default defineConfig({
  base: '/',
  plugins: [flags()],
  define: { __FLAGS__: JSON.stringify({ path: `/${FLAGS_PATH}`, codes: FLAG_CODES.join('') }) },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    sourcemap: true,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The first view in one chunk: each area's catalogue module awaits its messages (top-level
          // await), and the bundler would otherwise split every module shared with a screen loaded
          // later into a chunk of its own: a dozen small files that gzip worse than one.
          groups: [
            {
              name: 'app',
              test: (id: string) => FIRST_VIEW.test(id) && !LATER.test(id) && !id.endsWith('main.tsx'),
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/livez', '/js'].map((path) => [path, process.env.FOOTFALL_URL ?? 'http://localhost:8080']),
    ),
  },
});
