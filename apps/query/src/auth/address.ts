import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit key of a client address: an IPv4 address as is, an IPv6 address reduced to its
 * /64 (one household or server usually holds a whole /64), an IPv4-mapped IPv6 address as IPv4.
 * Kept in memory only.
 */
export function addressKey(address: string | undefined): string {
  const a = (address ?? '')
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (isIPv4(a)) return a;
  if (!isIPv6(a)) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  return `${expandIPv6(a).slice(0, 4).join(':')}::/64`;
}

function expandIPv6(a: string): string[] {
  let text = a.toLowerCase();
  // a trailing dotted IPv4 part stands for the last two groups
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.replace(v4[0], `${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`);
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}
