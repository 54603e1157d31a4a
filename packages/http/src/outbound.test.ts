import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlockedDestination,
  checkDestination,
  guardedFetch,
  guardedLookup,
  parseIPv4,
  privateReason,
} from './outbound.ts';

const refused = async (url: string, options = {}) => {
  const e = await checkDestination(url, options).then(
    () => null,
    (x: unknown) => x,
  );
  expect(e, url).toBeInstanceOf(BlockedDestination);
  return (e as Error).message;
};

describe('private and internal addresses', () => {
  it('reads every IPv4 spelling as inet_aton does', () => {
    expect(parseIPv4('127.0.0.1')).toBe(0x7f000001);
    expect(parseIPv4('2130706433')).toBe(0x7f000001);
    expect(parseIPv4('0177.0.0.1')).toBe(0x7f000001);
    expect(parseIPv4('0x7f.1')).toBe(0x7f000001);
    expect(parseIPv4('127.1')).toBe(0x7f000001);
    expect(parseIPv4('0x7f000001')).toBe(0x7f000001);
    expect(parseIPv4('10.0.258')).toBe(0x0a000102);
    expect(parseIPv4('256.0.0.1')).toBeNull();
    expect(parseIPv4('example.com')).toBeNull();
    expect(parseIPv4('1.2.3.4.5')).toBeNull();
  });

  it('refuses loopback, RFC 1918, link-local and metadata, CGNAT, multicast and the rest', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.255.254',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
      '192.0.2.1',
    ]) {
      expect(privateReason(ip), ip).not.toBeNull();
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '93.184.216.34']) {
      expect(privateReason(ip), ip).toBeNull();
    }
  });

  it('refuses IPv6 loopback, ULA, link-local, multicast, and every form that carries a private IPv4', () => {
    for (const ip of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'fec0::1',
      'ff02::1',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1', // the same, in hex
      '::ffff:169.254.169.254',
      '::127.0.0.1', // IPv4-compatible
      '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '2001:db8::1',
      '100::1',
    ]) {
      expect(privateReason(ip), ip).not.toBeNull();
    }
    for (const ip of [
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(privateReason(ip), ip).toBeNull();
    }
  });

  it('refuses such destinations in URLs, however they are written, before any connection', async () => {
    const noDns = { lookup: async () => ['93.184.216.34'] };
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://127.1:8080/hook',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://[2002:7f00:1::]/',
      'http://[fe80::1%25eth0]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/',
      'http://localhost:3000/',
      'http://app.localhost/',
      'http://metadata.google.internal/',
      'http://printer.local/',
      'http://intranet/',
      'ftp://example.com/',
      'file:///etc/passwd',
      'https://user:pass@example.com/',
      'not a url',
    ]) {
      await refused(url, noDns);
    }
    // a public name whose DNS answer holds a private address (one is enough)
    expect(
      await refused('https://hooks.example.com/x', { lookup: async () => ['93.184.216.34', '10.0.0.5'] }),
    ).toContain('resolves to a private (RFC 1918) address');
    expect(
      await refused('https://nowhere.example.com/', {
        lookup: async () => Promise.reject(new Error('ENOTFOUND')),
      }),
    ).toBe('the name does not resolve');
    await expect(checkDestination('https://hooks.example.com/x', noDns)).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('https://[2606:4700:4700::1111]/', noDns)).resolves.toBeInstanceOf(URL);
  });
});

describe('guardedFetch', () => {
  let server: Server;
  let base: string;
  let hits: string[];
  beforeAll(async () => {
    hits = [];
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/to-self') {
        res.writeHead(302, { location: '/ok' }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a local server, unless the test lets that one host:port through', async () => {
    await expect(guardedFetch(`${base}/ok`)).rejects.toBeInstanceOf(BlockedDestination);
    expect(hits).toEqual([]);
    const allow = [base.slice('http://'.length)];
    const res = await guardedFetch(`${base}/ok`, {}, { allow });
    expect(await res.text()).toBe('ok');
  });

  it('checks every redirect: one to a private address is refused, one to an allowed host followed', async () => {
    const allow = [base.slice('http://'.length)];
    await expect(guardedFetch(`${base}/to-metadata`, {}, { allow })).rejects.toThrow('link-local');
    const followed = await guardedFetch(`${base}/to-self`, {}, { allow });
    expect(await followed.text()).toBe('ok');
    expect(hits).toContain('/to-self');
  });

  it('checks the address DNS answers at connect time (a name that now resolves to loopback)', async () => {
    const port = base.split(':').pop();
    // the check before the request is fooled (public answer), the connection is not (loopback answer)
    let calls = 0;
    const rebinding = async () => (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']);
    const before = hits.length;
    await expect(
      guardedFetch(`http://rebind.example.com:${port}/ok`, {}, { lookup: rebinding }),
    ).rejects.toThrow();
    expect(hits.length).toBe(before);
    expect(calls).toBe(2);
  });

  it("answers the connect-time lookup in both of Node's shapes: a list when asked for all, else one address", async () => {
    const ask = (opts: { all?: boolean }, addresses: string[]) =>
      new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
        guardedLookup({ lookup: async () => addresses })(
          'hooks.example.com',
          opts,
          (error, address, family) => resolve({ error, address, family }),
        ),
      );
    // Node 20's net.connect asks with { all: true } (family autoselection) and needs a list
    expect(await ask({ all: true }, ['93.184.216.34', '2606:2800:220:1::1'])).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
      family: undefined,
    });
    expect(await ask({}, ['93.184.216.34'])).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const blocked = await ask({ all: true }, ['93.184.216.34', '10.0.0.1']);
    expect(blocked.error).toBeInstanceOf(BlockedDestination);
  });
});
