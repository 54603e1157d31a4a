import { gzipSync } from 'node:zlib';

/**
 * Served variants of the script. `default` is what `/js/<site>.js` serves; `vitals` adds Web
 * Vitals (LCP, CLS, INP, FCP, TTFB), kept out of the default to stay well inside its size budget.
 */
export const TRACKER_VARIANTS = ['default', 'vitals'] as const;
export type TrackerVariant = (typeof TRACKER_VARIANTS)[number];

/**
 * Largest allowed gzip size of each variant with its site id filled in, in bytes. The default's
 * budget is the spec's ("under 2 KB gzipped, budget 2,060 bytes"); `vitals` is opt-in and gets 500 more.
 * Tests fail past these.
 */
export const TRACKER_BUDGETS: Record<TrackerVariant, number> = { default: 2060, vitals: 2560 };

/** Placeholders in the built code, replaced by renderTracker() with literals. */
export const PLACEHOLDERS = {
  site: '__FF_SITE__',
  cookieless: '__FF_COOKIELESS__',
  api: '__FF_API__',
} as const;

/** Raw and gzip sizes in bytes of a piece of code (gzip at the default level, as servers use). */
export function sizeOf(code: string): { raw: number; gzip: number } {
  const bytes = Buffer.from(code);
  return { raw: bytes.length, gzip: gzipSync(bytes).length };
}
