import { readFileSync } from 'node:fs';

/** The VERSION file's content, put in by the build (scripts/build.ts); absent when running the sources. */
declare const __FOOTFALL_VERSION__: string | undefined;

let cached: string | undefined;

/** Footfall's version, from the top-level VERSION file: the one source for servers, tracker and packages. */
export function footfallVersion(): string {
  cached ??=
    typeof __FOOTFALL_VERSION__ === 'string'
      ? __FOOTFALL_VERSION__
      : readFileSync(new URL('../../../VERSION', import.meta.url), 'utf8').trim();
  return cached;
}
