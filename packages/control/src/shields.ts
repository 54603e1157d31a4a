import { BlockList, isIP } from 'node:net';
import { AppError } from '@footfall/http';

/**
 * A site's shields: traffic that is never counted (docs/ingest.md, "Shields"). The gateway drops
 * an event whose visitor address is in `ips`, whose country is in `countries`, whose page path
 * matches one of `pages` (`*` stands for any characters) or whose host is one of `hostnames`
 * (`*.example.com`: any subdomain of it). Nothing of a shielded event is stored but a per-day count
 * by kind; the address rule never writes an address anywhere.
 */
export interface Shields {
  ips: string[];
  countries: string[];
  pages: string[];
  hostnames: string[];
}

export const SHIELD_KINDS = ['ip', 'country', 'page', 'hostname'] as const;
export type ShieldKind = (typeof SHIELD_KINDS)[number];

/** At most this many entries in each list. */
export const SHIELD_LIST_MAX = { ips: 100, countries: 300, pages: 100, hostnames: 100 } as const;
const PAGE_MAX = 500;

export const NO_SHIELDS: Shields = { ips: [], countries: [], pages: [], hostnames: [] };

const bad = (field: string, problem: string) =>
  new AppError('invalid_body', `${field}: ${problem}`, { field });

/** `10.0.0.0/8`, `2001:db8::/32` or one address: its family and prefix, or null when it is neither. */
function parseRange(text: string): { address: string; family: 'ipv4' | 'ipv6'; prefix: number } | null {
  const [address = '', prefixText, extra] = text.split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, family, prefix: max };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return null;
  return { address, family, prefix: Number(prefixText) };
}

const HOSTNAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Whether a two-letter code names a region Intl knows (`XX` does not). */
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const isCountry = (code: string) => /^[A-Z]{2}$/.test(code) && regionNames.of(code) !== undefined;

function list(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value)) throw bad(field, 'must be a list of strings');
  if (value.length > max) throw bad(field, `at most ${max} entries`);
  return value.map((item, i) => {
    if (typeof item !== 'string') throw bad(`${field}[${i}]`, 'must be a string');
    return item.trim();
  });
}

/**
 * Checks and normalises the lists an owner sent (each optional: an absent list keeps `current`'s);
 * the first bad entry is a 400 naming itself (`shields.ips[2]: "10.0.0.0/33" is not …`).
 */
export function normalizeShields(input: Partial<Record<keyof Shields, unknown>>, current: Shields): Shields {
  const out: Shields = { ...current };
  if (input.ips !== undefined) {
    out.ips = list(input.ips, 'shields.ips', SHIELD_LIST_MAX.ips).map((text, i) => {
      const range = parseRange(text.toLowerCase());
      if (range === null) throw bad(`shields.ips[${i}]`, `"${text}" is not an IP address or a CIDR range`);
      return text.toLowerCase();
    });
  }
  if (input.countries !== undefined) {
    out.countries = list(input.countries, 'shields.countries', SHIELD_LIST_MAX.countries).map((text, i) => {
      const code = text.toUpperCase();
      if (!isCountry(code))
        throw bad(`shields.countries[${i}]`, `"${text}" is not a two-letter country code`);
      return code;
    });
  }
  if (input.pages !== undefined) {
    out.pages = list(input.pages, 'shields.pages', SHIELD_LIST_MAX.pages).map((text, i) => {
      if (!text.startsWith('/')) throw bad(`shields.pages[${i}]`, `"${text}" must start with /`);
      if (text.length > PAGE_MAX) throw bad(`shields.pages[${i}]`, `at most ${PAGE_MAX} characters`);
      return text;
    });
  }
  if (input.hostnames !== undefined) {
    out.hostnames = list(input.hostnames, 'shields.hostnames', SHIELD_LIST_MAX.hostnames).map((text, i) => {
      const host = text.toLowerCase().replace(/\.$/, '');
      if (host.length > 253 || !HOSTNAME.test(host)) {
        throw bad(
          `shields.hostnames[${i}]`,
          `"${text}" is not a host name (a *. before it takes every subdomain)`,
        );
      }
      return host;
    });
  }
  for (const key of Object.keys(out) as (keyof Shields)[]) out[key] = [...new Set(out[key])];
  return out;
}

/** The stored JSON of a site's shields, read leniently (a bad stored value is no shield). */
export function shieldsOf(stored: string | null | undefined): Shields {
  if (!stored) return NO_SHIELDS;
  try {
    const value = JSON.parse(stored) as Partial<Shields>;
    const strings = (x: unknown) =>
      Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
    return {
      ips: strings(value.ips),
      countries: strings(value.countries),
      pages: strings(value.pages),
      hostnames: strings(value.hostnames),
    };
  } catch {
    return NO_SHIELDS;
  }
}

/** The stored form: null when no list has an entry. */
export const storedShields = (s: Shields): string | null =>
  s.ips.length + s.countries.length + s.pages.length + s.hostnames.length === 0 ? null : JSON.stringify(s);

/** What the gateway checks an event's page and visitor against. */
export interface ShieldProbe {
  address: string;
  /** the page's host, lower case */
  host: string;
  path: string;
  /** two letters, upper case, or null when not known */
  country: string | null;
}

/** A site's shields made ready for checking every event: which one an event falls under, or null. */
export type ShieldCheck = (probe: ShieldProbe) => ShieldKind | null;

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a site's shields once (the gateway caches sites); undefined when the site has none. */
export function compileShields(s: Shields): ShieldCheck | undefined {
  if (storedShields(s) === null) return undefined;
  const blocks = new BlockList();
  for (const text of s.ips) {
    const range = parseRange(text);
    if (range === null) continue;
    if (range.prefix === (range.family === 'ipv4' ? 32 : 128)) blocks.addAddress(range.address, range.family);
    else blocks.addSubnet(range.address, range.prefix, range.family);
  }
  const countries = new Set(s.countries);
  const pages =
    s.pages.length === 0
      ? null
      : new RegExp(`^(?:${s.pages.map((p) => p.split('*').map(escapeRegExp).join('.*')).join('|')})$`);
  const exact = new Set(s.hostnames.filter((h) => !h.startsWith('*.')));
  const suffixes = s.hostnames.filter((h) => h.startsWith('*.')).map((h) => h.slice(1));
  return (probe) => {
    if (s.ips.length > 0) {
      // an IPv4 visitor on a dual-stack socket arrives as ::ffff:a.b.c.d: the IPv4 rules hold for it
      const address =
        probe.address.toLowerCase().startsWith('::ffff:') && isIP(probe.address.slice(7)) === 4
          ? probe.address.slice(7)
          : probe.address;
      const family = isIP(address);
      if (family !== 0 && blocks.check(address, family === 4 ? 'ipv4' : 'ipv6')) return 'ip';
    }
    if (probe.country !== null && countries.has(probe.country)) return 'country';
    if (pages?.test(probe.path)) return 'page';
    if (exact.has(probe.host) || suffixes.some((suffix) => probe.host.endsWith(suffix))) return 'hostname';
    return null;
  };
}
