import { CLICK_IDS } from './channels-data.ts';

const MAX_VALUE = 255;

/** Campaign tags of a landing URL. */
export interface Campaign {
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  /** the ad click id parameter present (`gclid`, `fbclid`, ...), by its canonical name */
  clickId: string | null;
}

type UtmField = Exclude<keyof Campaign, 'clickId'>;

/** Query parameter (lowercase) -> field. `ref` and `source` are read as the source when no `utm_source` is given, as peers do (Product Hunt sends `?ref=producthunt`). */
const UTM_PARAMS: ReadonlyMap<string, UtmField> = new Map([
  ['utm_source', 'utmSource'],
  ['utm_medium', 'utmMedium'],
  ['utm_campaign', 'utmCampaign'],
  ['utm_term', 'utmTerm'],
  ['utm_content', 'utmContent'],
]);
const SOURCE_FALLBACKS: ReadonlySet<string> = new Set(['ref', 'source']);

/** Lowercase parameter name -> [canonical name, priority]; the list order is the priority. */
const CLICK_PARAMS: ReadonlyMap<string, readonly [string, number]> = new Map(
  CLICK_IDS.map((c, index) => [c.param.toLowerCase(), [c.param, index] as const]),
);

const NONE: Campaign = Object.freeze({
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  utmTerm: null,
  utmContent: null,
  clickId: null,
});

function clean(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return trimmed.length > MAX_VALUE ? trimmed.slice(0, MAX_VALUE) : trimmed;
}

/**
 * UTM tags and the ad click id kind from a page URL's query. Parameter names are matched
 * case-insensitively, values are kept as sent (trimmed, at most 255 characters). When several
 * click ids are present the one listed first in `CLICK_IDS` wins (paid search ids first).
 * The click id's value is never kept, only which parameter it was.
 *
 * @example
 * campaignOf(new URL('https://example.com/?utm_source=newsletter&utm_medium=email&gclid=abc'));
 * // { utmSource: 'newsletter', utmMedium: 'email', ..., clickId: 'gclid' }
 */
export function campaignOf(url: URL): Campaign {
  if (url.search === '' || url.search === '?') return NONE;
  const out: { -readonly [K in keyof Campaign]: Campaign[K] } = { ...NONE };
  let fallbackSource: string | null = null;
  let clickPriority = Number.POSITIVE_INFINITY;
  for (const [rawKey, value] of url.searchParams) {
    const key = rawKey.toLowerCase();
    const field = UTM_PARAMS.get(key);
    if (field !== undefined) {
      if (out[field] === null) out[field] = clean(value);
      continue;
    }
    if (SOURCE_FALLBACKS.has(key)) {
      fallbackSource ??= clean(value);
      continue;
    }
    const click = CLICK_PARAMS.get(key);
    if (click !== undefined && click[1] < clickPriority && value.trim() !== '') {
      out.clickId = click[0];
      clickPriority = click[1];
    }
  }
  out.utmSource ??= fallbackSource;
  return out;
}
