import type { Channel } from '@footfall/schema';
import { CLICK_IDS, KNOWN_SOURCES, type KnownSource, MEDIUMS } from './channels-data.ts';
import { hostKey } from './referrer.ts';

/** What the channel of a visit is decided from (all already extracted by referrer.ts and utm.ts). */
export interface ChannelInput {
  /** external referrer host key, or null */
  referrerHost: string | null;
  referrerPath?: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  clickId: string | null;
}

export interface ChannelResult {
  channel: Channel;
  /** the assistant's name when the channel is 'AI Assistant', otherwise null */
  assistant: string | null;
}

// Lookup tables built once from the data file.
const exactHosts = new Map<string, KnownSource>();
const wildcardHosts = new Map<string, KnownSource>();
const brands = new Map<string, KnownSource>();
const sourceNames = new Map<string, KnownSource>();
const pathRules = new Map<string, { prefix: string; source: KnownSource }[]>();
for (const source of KNOWN_SOURCES) {
  for (const host of source.hosts ?? []) {
    if (host.startsWith('*.')) wildcardHosts.set(host.slice(2), source);
    else exactHosts.set(host, source);
  }
  for (const brand of source.brands ?? []) brands.set(brand, source);
  for (const name of source.sources ?? []) sourceNames.set(name, source);
  for (const rule of source.paths ?? []) {
    const rules = pathRules.get(rule.host) ?? [];
    rules.push({ prefix: rule.prefix, source });
    pathRules.set(rule.host, rules);
  }
}
const clickChannels = new Map<string, Channel>(CLICK_IDS.map((c) => [c.param, c.channel]));

/** Labels after a brand that look like a public suffix: `com`, `de`, `co.uk`, `com.br`. */
function isCountryEnding(labels: readonly string[], from: number): boolean {
  const count = labels.length - from;
  if (count < 1 || count > 2) return false;
  for (let i = from; i < labels.length; i++) if ((labels[i] as string).length > 3) return false;
  return true;
}

/**
 * The known source a referrer host (a host key) belongs to, or null. Order: host+path rules,
 * exact hosts, `*.` hosts from the most specific parent down, brands.
 *
 * @example
 * lookupHost('mail.google.com')?.category; // 'email'
 */
export function lookupHost(host: string, path?: string | null): KnownSource | null {
  if (path !== undefined && path !== null) {
    const rules = pathRules.get(host);
    if (rules !== undefined) {
      for (const rule of rules) {
        if (path === rule.prefix || path.startsWith(`${rule.prefix}/`)) return rule.source;
      }
    }
  }
  const exact = exactHosts.get(host);
  if (exact !== undefined) return exact;
  let dot = -1;
  let suffix = host;
  for (;;) {
    const wildcard = wildcardHosts.get(suffix);
    if (wildcard !== undefined) return wildcard;
    dot = host.indexOf('.', dot + 1);
    if (dot < 0) break;
    suffix = host.slice(dot + 1);
  }
  const labels = host.split('.');
  const brand = brands.get(labels[0] as string);
  if (brand !== undefined && isCountryEnding(labels, 1)) return brand;
  return null;
}

/**
 * The known source a `utm_source` value names, or null. Matched lowercase; a value that looks
 * like a host (`chatgpt.com`, `www.reddit.com`) is also looked up as a host.
 */
export function lookupSource(utmSource: string | null): KnownSource | null {
  if (utmSource === null) return null;
  const key = utmSource.trim().toLowerCase();
  if (key === '') return null;
  const named = sourceNames.get(key);
  if (named !== undefined) return named;
  return key.includes('.') ? lookupHost(hostKey(key)) : null;
}

type Category = KnownSource['category'];

// Plain functions rather than closures inside classifyChannel: this runs once per event, and a
// closure is a new function object (and, under tsx, a __name call) every time.
/** The utm_source's category is `c`, or there is no known utm_source and the referrer's is. */
function sourceOrElseReferrerIs(source: KnownSource | null, referrer: KnownSource | null, c: Category) {
  return source?.category === c || (source === null && referrer?.category === c);
}

/** Either the utm_source's or the referrer's category is `c`. */
function eitherIs(source: KnownSource | null, referrer: KnownSource | null, c: Category) {
  return source?.category === c || referrer?.category === c;
}

const DIRECT: ChannelResult = Object.freeze({ channel: 'Direct', assistant: null });

function result(channel: Channel, assistant: string | null = null): ChannelResult {
  return { channel, assistant };
}

/**
 * The channel of a visit, after Google Analytics 4's default channel rules cut down to
 * Footfall's eight channels (the order is written out in CHANNELS.md):
 * paid medium -> paid click id -> AI assistant -> email -> organic search -> organic social ->
 * referral -> direct.
 *
 * @example
 * classifyChannel({ referrerHost: 'chatgpt.com', utmSource: null, utmMedium: null, clickId: null });
 * // { channel: 'AI Assistant', assistant: 'ChatGPT' }
 */
export function classifyChannel(input: ChannelInput): ChannelResult {
  const medium = input.utmMedium === null ? '' : input.utmMedium.trim().toLowerCase();
  const fromSource = lookupSource(input.utmSource);
  const fromReferrer =
    input.referrerHost === null ? null : lookupHost(input.referrerHost, input.referrerPath);

  if (medium !== '' && MEDIUMS.paid.test(medium)) {
    return result(sourceOrElseReferrerIs(fromSource, fromReferrer, 'social') ? 'Paid Social' : 'Paid Search');
  }
  const clickChannel = input.clickId === null ? undefined : clickChannels.get(input.clickId);
  if (clickChannel === 'Paid Search' || clickChannel === 'Paid Social') return result(clickChannel);

  if (fromSource?.category === 'ai') return result('AI Assistant', fromSource.name);
  if (fromReferrer?.category === 'ai') return result('AI Assistant', fromReferrer.name);

  if (MEDIUMS.email.has(medium) || eitherIs(fromSource, fromReferrer, 'email')) return result('Email');
  if (MEDIUMS.search.has(medium) || eitherIs(fromSource, fromReferrer, 'search'))
    return result('Organic Search');
  if (
    MEDIUMS.social.has(medium) ||
    eitherIs(fromSource, fromReferrer, 'social') ||
    clickChannel === 'Organic Social'
  ) {
    return result('Organic Social');
  }
  if (
    input.referrerHost !== null ||
    MEDIUMS.referral.has(medium) ||
    input.utmSource !== null ||
    medium !== ''
  ) {
    return result('Referral');
  }
  return DIRECT;
}
