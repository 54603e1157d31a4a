/**
 * What the dashboard's first view costs a browser: the entry chunk of the built dashboard and every
 * chunk it imports statically (screens loaded later are left out), read from Vite's manifest, with
 * their sizes raw, gzipped and brotli-compressed. The budget test (tests/dashboard/budget.test.ts)
 * and the benchmark (bench/dashboard.ts) read the same numbers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';

/** The most JavaScript the first view may ship, gzipped (issue 17): 60 KB. */
export const FIRST_VIEW_JS_BUDGET = 60 * 1024;

interface ManifestEntry {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}

export interface AssetSize {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
}

const measure = (dir: string, file: string): AssetSize => {
  const body = readFileSync(join(dir, file));
  return {
    file,
    raw: body.length,
    gzip: gzipSync(body, { level: 9 }).length,
    brotli: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};

const total = (sizes: AssetSize[]) => ({
  raw: sizes.reduce((a, s) => a + s.raw, 0),
  gzip: sizes.reduce((a, s) => a + s.gzip, 0),
  brotli: sizes.reduce((a, s) => a + s.brotli, 0),
});

/** The first view's JavaScript and CSS in a built dashboard directory (`packages/cli/dist/dashboard`). */
export function firstViewSizes(dir: string) {
  const manifest = JSON.parse(readFileSync(join(dir, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    ManifestEntry
  >;
  const entry = Object.entries(manifest).find(([, e]) => e.isEntry);
  if (!entry) throw new Error('the dashboard manifest has no entry');
  const chunks = new Set<string>();
  const css = new Set<string>();
  const walk = (key: string) => {
    const e = manifest[key];
    if (!e || chunks.has(e.file)) return;
    chunks.add(e.file);
    for (const c of e.css ?? []) css.add(c);
    for (const i of e.imports ?? []) walk(i);
  };
  walk(entry[0]);
  const js = [...chunks].map((f) => measure(dir, f));
  const styles = [...css].map((f) => measure(dir, f));
  const all = Object.values(manifest).map((e) => measure(dir, e.file));
  return { js, css: styles, jsTotal: total(js), cssTotal: total(styles), allJsTotal: total(all) };
}
