import { Lru } from './lru.ts';

/** Header values longer than this are not worth parsing (browsers send well under 200). */
const MAX_HEADER = 512;
/** The WAL record's `language` field holds at most 35 characters (BCP 47's practical bound). */
const MAX_TAG = 35;
const cache = new Lru<string, string | null>(1000);

/**
 * `language[-Script][-REGION]` of one tag, canonicalised by `Intl.Locale` ('EN-us' -> 'en-US',
 * 'zh-hant-tw' -> 'zh-Hant-TW', 'iw' -> 'he'); variants and extensions are dropped. Null when
 * the tag is not a valid language tag.
 */
function normaliseTag(tag: string): string | null {
  try {
    const locale = new Intl.Locale(tag);
    let out = locale.language;
    if (out === 'und') return null;
    if (locale.script !== undefined) out += `-${locale.script}`;
    if (locale.region !== undefined) out += `-${locale.region}`;
    return out.length <= MAX_TAG ? out : null;
  } catch {
    return null;
  }
}

function pick(header: string): string | null {
  let best: string | null = null;
  let bestQ = 0;
  for (const part of header.split(',')) {
    const semi = part.indexOf(';');
    const tag = (semi < 0 ? part : part.slice(0, semi)).trim();
    if (tag === '' || tag === '*') continue;
    let q = 1;
    if (semi >= 0) {
      const param = part.slice(semi + 1).trim();
      if (param.startsWith('q=') || param.startsWith('Q=')) q = Number(param.slice(2));
      if (!Number.isFinite(q) || q < 0 || q > 1) continue;
    }
    // q=0 means "not acceptable"; among equal weights the first listed wins.
    if (q <= bestQ) continue;
    const normalised = normaliseTag(tag);
    if (normalised === null) continue;
    best = normalised;
    bestQ = q;
  }
  return best;
}

/**
 * The visitor's preferred language from an `Accept-Language` header: the valid tag with the
 * highest weight, in canonical BCP 47 case with its region kept (`en-US`, `pt-BR`, `de`,
 * `zh-Hant-TW`), so reports can show the region or fold it by the part before the dash.
 * Null when the header is absent, empty, `*` only, or holds no valid tag.
 *
 * @example
 * primaryLanguage('en-us,en;q=0.9,de;q=0.8'); // 'en-US'
 */
export function primaryLanguage(header: string | undefined | null): string | null {
  if (header === undefined || header === null || header === '' || header.length > MAX_HEADER) return null;
  const cached = cache.get(header);
  if (cached !== undefined) return cached;
  const result = pick(header);
  cache.set(header, result);
  return result;
}
