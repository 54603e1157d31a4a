import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent, RequestInit, Response } from 'undici';

/** undici, loaded with the first call out (./undici.ts says why). */
export const loadUndici = () => import('./undici.ts');

/**
 * Outgoing requests to addresses people give Footfall (alert webhooks, install checks, favicons)
 * must never reach the machine itself or its private networks. This module refuses private and
 * internal addresses in every spelling: checked before a destination is stored (checkDestination),
 * and again at connect time on the address DNS answered (guardedFetch's agent), so a name that
 * resolves to a public address when stored and a private one later (DNS rebinding) is still
 * refused; each redirect is checked the same way.
 */

/** A destination refused as private or internal; the message says why, without the URL. */
export class BlockedDestination extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BlockedDestination';
  }
}

/** Blocked IPv4 ranges: [first address as a 32-bit number, prefix length, what it is]. */
const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v4Number = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/**
 * An IPv4 address however it is spelled, as a number: dotted (`127.0.0.1`), shortened (`127.1`),
 * decimal (`2130706433`), octal (`0177.0.0.1`) or hex (`0x7f.1`) parts, as inet_aton reads them.
 * null when it is not one.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length === 0 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let v: number;
    if (/^0x[0-9a-f]*$/i.test(part)) v = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) v = part === '0' ? 0 : Number.parseInt(part.slice(1) || '0', 8);
    else if (/^[1-9][0-9]*$/.test(part)) v = Number(part);
    else return null;
    if (!Number.isFinite(v)) return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  return values.reduce((n, v, i) => n + v * 256 ** (3 - i), 0) + last;
}

function v4Blocked(n: number): string | null {
  for (const [first, prefix, what] of V4_BLOCKED) {
    const size = 2 ** (32 - prefix);
    const start = v4Number(first);
    if (n >= start && n < start + size) return what;
  }
  return n === 0xffffffff ? 'broadcast' : null;
}

/** An IPv6 address (no zone) as eight 16-bit groups; null when it is not one. */
function v6Groups(text: string): number[] | null {
  if (isIP(text) !== 6) return null;
  let body = text.toLowerCase();
  // an IPv4 tail (::ffff:1.2.3.4) becomes two groups
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const n = v4Number(tail[1]!);
    body = `${body.slice(0, -tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = body.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...new Array<string>(fill).fill('0'), ...right].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 ? groups : null;
}

const embeddedV4 = (g: number[], at: number) => (g[at]! * 65536 + g[at + 1]!) >>> 0;

/**
 * Why an IP address (IPv4, or IPv6 with or without a zone id) may not be reached, or null when it
 * is a public one. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
 * judged by that address; Teredo, ULA, link-local, site-local, multicast, discard and documentation
 * ranges are refused.
 */
export function privateReason(address: string): string | null {
  if (address.includes('%')) return 'an address with a zone id (link-local)';
  const v4 = isIP(address) === 4 ? v4Number(address) : null;
  if (v4 !== null) return v4Blocked(v4);
  const g = v6Groups(address);
  if (!g) return 'not an IP address';
  const [a, b, c, d, e, f] = g as [number, number, number, number, number, number];
  const zeroHead = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  if (zeroHead && f === 0 && g[6] === 0 && g[7]! <= 1) return g[7] === 1 ? 'loopback' : 'unspecified';
  if (zeroHead && (f === 0xffff || f === 0)) return v4Blocked(embeddedV4(g, 6)) ?? null; // mapped, compatible
  if (a === 0x64 && b === 0xff9b) return v4Blocked(embeddedV4(g, 6)) ?? null; // NAT64 (64:ff9b::/96, /48)
  if (a === 0x2002) return v4Blocked(embeddedV4(g, 1)) ?? null; // 6to4
  if (a === 0x2001 && b === 0) return 'Teredo';
  if (a === 0x2001 && b === 0xdb8) return 'documentation';
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return 'discard';
  if ((a & 0xfe00) === 0xfc00) return 'unique local (ULA)';
  if ((a & 0xffc0) === 0xfe80) return 'link-local';
  if ((a & 0xffc0) === 0xfec0) return 'site-local';
  if ((a & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/** Names that mean this machine or an internal service, whatever DNS says. */
const INTERNAL_NAMES = /(^|\.)(localhost|localdomain|internal|local|home\.arpa)$/i;

export interface GuardOptions {
  /**
   * host:port pairs let through although private (tests' local servers only, through a documented
   * FOOTFALL_UNSAFE_* switch); never set in production
   */
  allow?: readonly string[];
  /** the resolver (tests): by default the system's, every address */
  lookup?: (hostname: string) => Promise<string[]>;
}

const systemLookup = (hostname: string) =>
  new Promise<string[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, found: LookupAddress[]) =>
      error ? reject(error) : resolve(found.map((x) => x.address)),
    ),
  );

const portOf = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');

/**
 * Checks a destination before it is stored or asked: http or https, no credentials in it, and a
 * host that is neither an internal name nor (once resolved) a private address. Answers the parsed
 * URL; throws BlockedDestination with the reason.
 */
export async function checkDestination(input: string, options: GuardOptions = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new BlockedDestination('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new BlockedDestination('only http and https');
  if (url.username || url.password) throw new BlockedDestination('credentials in the address');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (options.allow?.includes(`${host}:${portOf(url)}`)) return url;
  const literal = isIP(host) ? host : parseIPv4(host) !== null ? host : null;
  if (literal !== null) {
    const v4 = isIP(literal) ? null : parseIPv4(literal);
    const reason = v4 !== null ? v4Blocked(v4) : privateReason(literal);
    if (reason) throw new BlockedDestination(`a ${reason} address`);
    return url;
  }
  if (INTERNAL_NAMES.test(host) || !host.includes('.')) throw new BlockedDestination('an internal name');
  let addresses: string[];
  try {
    addresses = await (options.lookup ?? systemLookup)(host);
  } catch {
    throw new BlockedDestination('the name does not resolve');
  }
  for (const address of addresses) {
    const reason = privateReason(address);
    if (reason) throw new BlockedDestination(`the name resolves to a ${reason} address`);
  }
  return url;
}

/**
 * An undici agent whose connections check the address DNS answers at connect time (no DNS
 * rebinding between the check and the connection): a private one fails the connection.
 */
export async function guardedAgent(options: GuardOptions = {}): Promise<Agent> {
  const { Agent } = await loadUndici();
  return new Agent({ connect: { lookup: guardedLookup(options) } });
}

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * The connect-time lookup of guardedAgent, in `dns.lookup`'s shape: every address DNS answers must
 * be public, else the connection fails. Node asks with `{ all: true }` (to try IPv4 and IPv6 one
 * after the other) and then takes a list; otherwise one address.
 */
export function guardedLookup(options: GuardOptions = {}) {
  return (hostname: string, opts: { all?: boolean } | number | undefined, callback: LookupCallback) => {
    const all = typeof opts === 'object' && opts !== null && opts.all === true;
    (options.lookup ?? systemLookup)(hostname).then(
      (addresses) => {
        const good = addresses.filter((a) => privateReason(a) === null);
        if (good.length === 0 || good.length < addresses.length) {
          callback(new BlockedDestination('the name resolves to a private address'), all ? [] : '', 4);
          return;
        }
        if (all)
          callback(
            null,
            good.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, good[0]!, isIP(good[0]!));
      },
      (error: Error) => callback(error, all ? [] : '', 4),
    );
  };
}

/**
 * fetch for destinations people gave: each URL (the first and every redirect, at most
 * `maxRedirects`) passes checkDestination, and the connection the guarded agent's connect-time
 * check. Throws BlockedDestination when a hop is refused.
 */
export async function guardedFetch(
  input: string,
  init: RequestInit & { maxRedirects?: number } = {},
  options: GuardOptions = {},
): Promise<Response> {
  const agent = await guardedAgent(options);
  const { fetch } = await loadUndici();
  const { maxRedirects = 3, ...rest } = init;
  let url = input;
  try {
    for (let hop = 0; ; hop++) {
      const checked = await checkDestination(url, options);
      const allowed = options.allow?.includes(
        `${checked.hostname.replace(/^\[|\]$/g, '')}:${portOf(checked)}`,
      );
      const res = await fetch(checked, {
        ...rest,
        redirect: 'manual',
        ...(allowed ? {} : { dispatcher: agent }),
      });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return res;
      if (hop >= maxRedirects) throw new BlockedDestination('too many redirects');
      await res.body?.cancel();
      url = new URL(location, checked).toString();
    }
  } finally {
    // connections of this agent are not kept: each call is its own
    void agent.close();
  }
}
