import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { CONSENT_PLACEHOLDERS, PLACEHOLDERS, type TrackerAddon, type TrackerBuild } from './variants.ts';

// Builds the browser script with esbuild. The servers never run this: `pnpm build`
// (scripts/build.ts) calls it once per build and puts a module holding the results in its place
// in the built gateway; tests and benchmarks that run the sources call it directly.
const ENTRY = fileURLToPath(new URL('./browser/main.ts', import.meta.url));
const built = new Map<TrackerBuild, string>();
const addons = new Map<TrackerAddon, string>();

/**
 * The minified script of one build with its placeholders still in, built once per process with
 * esbuild (about 20 ms) and cached. Throws if the build would leave a placeholder ambiguous, or
 * a consent placeholder in a build without the bar.
 * @example const code = buildTracker('default');
 */
export function buildTracker(build: TrackerBuild = 'default'): string {
  let code = built.get(build);
  if (code === undefined) {
    const consent = build.startsWith('consent');
    const result = buildSync({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      minify: true,
      format: 'iife',
      target: 'es2020',
      // code behind a false flag is dropped: the default build holds nothing of the others
      define: { __FF_VITALS__: String(build.endsWith('vitals')), __FF_CONSENT__: String(consent) },
      legalComments: 'none',
      logLevel: 'silent',
      // strict mode changes nothing the tracker does; dropping the directive saves bytes
      tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
    });
    code = result.outputFiles[0]!.text.trim();
    for (const placeholder of Object.values(PLACEHOLDERS)) {
      if (code.split(placeholder).length !== 2)
        throw new Error(`tracker build: ${placeholder} must occur once`);
    }
    for (const placeholder of Object.values(CONSENT_PLACEHOLDERS)) {
      if (code.split(placeholder).length !== (consent ? 2 : 1))
        throw new Error(`tracker build ${build}: ${placeholder} must occur ${consent ? 'once' : 'never'}`);
    }
    built.set(build, code);
  }
  return code;
}

/**
 * The minified script of an add-on (`browser/<name>.ts`), appended by renderTracker() to the
 * tracker of a site that needs it; built once per process and cached like the builds.
 */
export function buildAddon(addon: TrackerAddon): string {
  let code = addons.get(addon);
  if (code === undefined) {
    const result = buildSync({
      entryPoints: [fileURLToPath(new URL(`./browser/${addon}.ts`, import.meta.url))],
      bundle: true,
      write: false,
      minify: true,
      format: 'iife',
      target: 'es2020',
      legalComments: 'none',
      logLevel: 'silent',
      tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
    });
    code = result.outputFiles[0]!.text.trim();
    addons.set(addon, code);
  }
  return code;
}
