import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { PLACEHOLDERS, type TrackerVariant } from './variants.ts';

// Builds the browser script with esbuild. The servers never run this: `pnpm build`
// (scripts/build.ts) calls it once per variant and puts a module holding the results in its place
// in the built gateway; tests and benchmarks that run the sources call it directly.
const ENTRY = fileURLToPath(new URL('./browser/main.ts', import.meta.url));
const built = new Map<TrackerVariant, string>();

/**
 * The minified script of one variant with its placeholders still in, built once per process with
 * esbuild (about 20 ms) and cached. Throws if the build would leave a placeholder ambiguous.
 * @example const code = buildTracker('default');
 */
export function buildTracker(variant: TrackerVariant = 'default'): string {
  let code = built.get(variant);
  if (code === undefined) {
    const result = buildSync({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      minify: true,
      format: 'iife',
      target: 'es2020',
      define: { __FF_VITALS__: String(variant === 'vitals') },
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
    built.set(variant, code);
  }
  return code;
}
