import * as v from 'valibot';
import { LIMITS } from './limits.ts';

/**
 * Kinds of tracker events (`k`).
 * - `pv`: a pageview.
 * - `ev`: a custom event (`n` names it, `p` carries properties). Outbound link clicks and file
 *   downloads are custom events with the reserved names `Outbound Link` and `File Download`.
 * - `en`: engagement of the page being left (`e` engaged milliseconds, `d` scroll depth percent).
 * - `vt`: Core Web Vitals of the page (`m`).
 */
export const EVENT_KINDS = ['pv', 'ev', 'en', 'vt'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const url = v.pipe(v.string(), v.maxLength(LIMITS.urlChars), v.url());
// A finite number only: JSON.parse reads 1e400 as Infinity, which JSON cannot write back.
const propValue = v.union([
  v.pipe(v.string(), v.maxLength(LIMITS.propValueChars)),
  v.pipe(v.number(), v.finite('must be a finite number (1e400 and the like cannot be stored)')),
  v.boolean(),
]);
const nonNegInt = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max));
const metric = v.pipe(v.number(), v.minValue(0), v.maxValue(600_000));

/**
 * Keys a JavaScript object treats specially. valibot leaves them out of a record's output, so an
 * event carrying one would be stored without it: it is refused instead.
 */
export const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const isObject = (o: unknown): o is Record<string, unknown> =>
  typeof o === 'object' && o !== null && !Array.isArray(o);
const reservedKey = (o: unknown) =>
  isObject(o) ? RESERVED_KEYS.find((k) => Object.hasOwn(o, k)) : undefined;

/**
 * A JSON object (valibot reads an array as one: `[]` would pass as `{}`), without a reserved key,
 * then checked by `schema`.
 */
const jsonObject = <T extends v.GenericSchema>(schema: T) =>
  v.pipe(
    v.unknown(),
    v.check(isObject, 'must be an object, not an array'),
    v.check(
      (o) => reservedKey(o) === undefined,
      (issue) => `must not use the key ${reservedKey(issue.input)}`,
    ),
    schema,
  );

/**
 * The body of `POST /api/e`: strict, so an unknown field is an error that names it.
 * Short keys keep the tracker small; docs/ingest.md lists them in words.
 */
export const IngestEventSchema = v.strictObject({
  /** site id */
  s: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  /** kind */
  k: v.picklist(EVENT_KINDS),
  /** absolute page URL */
  u: url,
  /** referrer URL (empty string when there is none) */
  r: v.optional(v.union([v.literal(''), url])),
  /**
   * event id, random, chosen by the sender; retries reuse it. Optional for server senders: the
   * gateway makes one when it is absent (and such an event's retries are then not deduplicated).
   */
  i: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9_-]+$/, 'must be url-safe characters'),
      v.minLength(LIMITS.eventIdMinChars),
      v.maxLength(LIMITS.eventIdMaxChars),
    ),
  ),
  /** custom event name (required for `ev`) */
  n: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.eventNameChars))),
  /** custom event properties */
  p: v.optional(
    jsonObject(
      v.pipe(
        v.record(v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.propKeyChars)), propValue),
        v.check((o) => Object.keys(o).length <= LIMITS.propCount, `at most ${LIMITS.propCount} properties`),
      ),
    ),
  ),
  /** engaged time on the page, milliseconds */
  e: v.optional(nonNegInt(24 * 60 * 60 * 1000)),
  /** deepest scroll, percent */
  d: v.optional(nonNegInt(100)),
  /** visitor id from the `footfall_vid` cookie (cookie mode only) */
  v: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8 to 64 url-safe characters'))),
  /** screen width and height in CSS pixels */
  w: v.optional(nonNegInt(100_000)),
  h: v.optional(nonNegInt(100_000)),
  /** Web Vitals in milliseconds (CLS unitless) */
  m: v.optional(
    jsonObject(
      v.strictObject({
        lcp: v.optional(metric),
        fcp: v.optional(metric),
        inp: v.optional(metric),
        ttfb: v.optional(metric),
        cls: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
      }),
    ),
  ),
  /** age of a queued event when it was sent, milliseconds */
  a: v.optional(nonNegInt(10 * 24 * 60 * 60 * 1000)),
});
export type IngestEvent = v.InferOutput<typeof IngestEventSchema>;

/** The body of `POST /api/crawl`. */
export const CrawlHitSchema = v.strictObject({
  s: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  u: url,
  ua: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
  st: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599))),
});
export type CrawlHit = v.InferOutput<typeof CrawlHitSchema>;
