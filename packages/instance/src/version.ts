import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** Footfall's version, from the top-level VERSION file: the one source for servers, tracker and packages. */
export function footfallVersion(): string {
  cached ??= readFileSync(new URL('../../../VERSION', import.meta.url), 'utf8').trim();
  return cached;
}
