import { isIPv4, isIPv6 } from 'node:net';

/**
 * Strips what can surround an address in headers and socket APIs: `[...]` brackets, a
 * `:port` after an IPv4 address or after brackets, and an IPv6 zone id (`%eth0`).
 */
function unwrap(raw: string): string {
  let s = raw.trim();
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0) return '';
    s = s.slice(1, end);
  } else {
    const colon = s.indexOf(':');
    // One colon only: IPv4 with a port (`1.2.3.4:5678`). IPv6 has at least two.
    if (colon > 0 && s.indexOf(':', colon + 1) < 0) s = s.slice(0, colon);
  }
  const zone = s.indexOf('%');
  return zone >= 0 ? s.slice(0, zone) : s;
}

/** The 8 16-bit groups of a valid IPv6 address (embedded IPv4 tail allowed). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = `${text.slice(0, lastColon + 1)}0`; // placeholder group, removed below
  }
  const double = text.indexOf('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  let groups: number[];
  if (double >= 0) {
    const head = parse(text.slice(0, double));
    const rest = parse(text.slice(double + 2));
    const fill = 8 - head.length - rest.length - (tail.length > 0 ? 1 : 0);
    groups = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  } else {
    groups = parse(text);
  }
  if (tail.length > 0) groups = [...groups.slice(0, -1), ...tail];
  return groups;
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run (2+) of zero groups as `::`. */
function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function isMappedIPv4(groups: readonly number[]): boolean {
  return (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  );
}

/**
 * One canonical text per address, so the same visitor always hashes and geolocates the same:
 * IPv4 as dotted quad; IPv6 in RFC 5952 form; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
 * also written `::ffff:102:304`) as its IPv4 address. Brackets, ports and zone ids are
 * removed. Null when the text is not an IP address.
 *
 * @example
 * normaliseAddress('[::FFFF:203.0.113.9]:443'); // '203.0.113.9'
 */
export function normaliseAddress(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  const address = unwrap(raw);
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return null;
  const groups = ipv6Groups(address);
  if (isMappedIPv4(groups)) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return formatIPv6(groups);
}

/**
 * The key rate limits count by: an IPv4 address as it is, an IPv6 address reduced to its /64
 * network (one subscriber usually holds a whole /64), written `2001:db8:1:2::/64`. Any written
 * form is accepted (compressed, expanded, zone id, brackets, IPv4-mapped). Null when not an
 * address.
 *
 * @example
 * addressKey('2001:DB8:0:0:1:2:3:4'); // '2001:db8::/64'
 */
export function addressKey(raw: string | undefined | null): string | null {
  const address = normaliseAddress(raw);
  if (address === null || !address.includes(':')) return address;
  // The last four groups are zero, so the text always ends in `::` (e.g. `2001:db8::`).
  const groups = ipv6Groups(address);
  return `${formatIPv6([...groups.slice(0, 4), 0, 0, 0, 0])}/64`;
}
