import { isIPv4 } from 'node:net';

/**
 * TEST-ONLY: a minimal MaxMind DB (.mmdb) writer, so geo tests can build small databases with
 * the layouts of DB-IP Lite and GeoLite2 without shipping or downloading one. It follows the
 * MaxMind DB format 2.0 spec: a binary search tree over 128-bit addresses (IPv4 networks sit
 * under ::/96, as in real databases) with 24-bit records, a 16-byte separator, the data
 * section, then the metadata after the `\xAB\xCD\xEFMaxMind.com` marker. No npm package writes
 * this format (mmdb-lib and maxmind only read it).
 */
export type MmdbValue = string | number | bigint | boolean | MmdbValue[] | { [key: string]: MmdbValue };

const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);

function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const first = extended ? 0 : type << 5;
  const typeByte = extended ? [type - 7] : [];
  if (size < 29) return Buffer.from([first | size, ...typeByte]);
  if (size < 285) return Buffer.from([first | 29, ...typeByte, size - 29]);
  if (size < 65821) {
    const rest = size - 285;
    return Buffer.from([first | 30, ...typeByte, rest >> 8, rest & 0xff]);
  }
  const rest = size - 65821;
  return Buffer.from([first | 31, ...typeByte, (rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff]);
}

function unsigned(type: number, value: bigint): Buffer {
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

/** Encodes one value in the MaxMind DB data format. Numbers are written as uint32. */
export function encodeValue(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0);
  if (typeof value === 'bigint') return unsigned(9, value);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
      const bytes = Buffer.alloc(8);
      bytes.writeDoubleBE(value);
      return Buffer.concat([control(3, 8), bytes]);
    }
    return unsigned(6, BigInt(value));
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encodeValue)]);
  const entries = Object.entries(value);
  return Buffer.concat([
    control(7, entries.length),
    ...entries.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)]),
  ]);
}

interface TreeNode {
  children: [Child, Child];
}
type Child = TreeNode | { data: number } | null;

/** 128 bits of an address, most significant first; IPv4 mapped to ::a.b.c.d (the first 96 bits zero). */
function addressBits(address: string): number[] {
  const bits = new Array<number>(128).fill(0);
  let bytes: number[];
  if (isIPv4(address)) {
    bytes = [...new Array<number>(12).fill(0), ...address.split('.').map(Number)];
  } else {
    const [head = '', tail = ''] = address.split('::');
    const h = head === '' ? [] : head.split(':');
    const t = tail === '' ? [] : tail.split(':');
    const groups = address.includes('::')
      ? [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t]
      : h;
    bytes = groups.flatMap((g) => {
      const n = Number.parseInt(g, 16);
      return [n >> 8, n & 0xff];
    });
  }
  bytes.forEach((byte, i) => {
    for (let b = 0; b < 8; b++) bits[i * 8 + b] = (byte >> (7 - b)) & 1;
  });
  return bits;
}

/**
 * Builds a database from networks (`'203.0.113.0/24'`, `'2001:db8::/32'`) and their records.
 * Later, more specific networks may sit inside earlier ones.
 *
 * @example
 * buildMmdb({ databaseType: 'DBIP-Country-Lite', networks: [['203.0.113.0/24', { country: { iso_code: 'NL' } }]] });
 */
export function buildMmdb(options: { databaseType: string; networks: [string, MmdbValue][] }): Buffer {
  const dataChunks: Buffer[] = [];
  const dataOffsets = new Map<string, number>();
  let dataSize = 0;
  const root: TreeNode = { children: [null, null] };

  for (const [cidr, record] of options.networks) {
    const [address = '', lengthText = ''] = cidr.split('/');
    const prefix = Number(lengthText) + (isIPv4(address) ? 96 : 0);
    const key = JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    let offset = dataOffsets.get(key);
    if (offset === undefined) {
      const encoded = encodeValue(record);
      offset = dataSize;
      dataOffsets.set(key, offset);
      dataChunks.push(encoded);
      dataSize += encoded.length;
    }
    const bits = addressBits(address);
    let node = root;
    for (let depth = 0; depth < prefix - 1; depth++) {
      const bit = bits[depth] as 0 | 1;
      let child = node.children[bit];
      if (child === null || 'data' in child) {
        // Split an existing leaf so the wider network keeps covering the other half.
        child = { children: [child, child] };
        node.children[bit] = child;
      }
      node = child;
    }
    node.children[bits[prefix - 1] as 0 | 1] = { data: offset };
  }

  const nodes: TreeNode[] = [];
  const order = (n: TreeNode) => {
    nodes.push(n);
    for (const c of n.children) if (c !== null && 'children' in c) order(c);
  };
  order(root);
  const numbers = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((n, i) => {
    n.children.forEach((c, side) => {
      const value =
        c === null ? nodeCount : 'data' in c ? nodeCount + 16 + c.data : (numbers.get(c) as number);
      tree.writeUIntBE(value, i * 6 + side * 3, 3);
    });
  });

  const metadata = encodeValue({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 6,
    database_type: options.databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor(Date.UTC(2025, 0, 1) / 1000)),
    description: { en: 'Footfall test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...dataChunks, METADATA_MARKER, metadata]);
}

/** A DB-IP Lite / GeoLite2 style country record. */
export function countryRecord(iso: string): MmdbValue {
  return { country: { iso_code: iso, names: { en: iso } } };
}

/** A DB-IP Lite / GeoLite2 style city record. */
export function cityRecord(iso: string, region: string, city: string): MmdbValue {
  return {
    city: { names: { en: city } },
    country: { iso_code: iso, names: { en: iso } },
    subdivisions: [{ names: { en: region } }],
    location: { latitude: 52.37, longitude: 4.89 },
  };
}
