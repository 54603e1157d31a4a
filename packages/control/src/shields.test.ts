import { describe, expect, it } from 'vitest';
import { compileShields, NO_SHIELDS, normalizeShields, type ShieldProbe, storedShields } from './shields.ts';

const probe = (p: Partial<ShieldProbe>): ShieldProbe => ({
  address: '198.51.100.7',
  host: 'example.com',
  path: '/',
  country: null,
  ...p,
});

describe('shields', () => {
  it('are checked entry by entry, the first bad one named', () => {
    const err = (input: Parameters<typeof normalizeShields>[0]) => {
      try {
        normalizeShields(input, NO_SHIELDS);
      } catch (e) {
        return { message: (e as Error).message, field: (e as { field?: string }).field };
      }
      return undefined;
    };
    expect(err({ ips: ['10.0.0.0/8', '10.0.0.0/33'] })).toEqual({
      message: 'shields.ips[1]: "10.0.0.0/33" is not an IP address or a CIDR range',
      field: 'shields.ips[1]',
    });
    expect(err({ ips: ['2001:db8::/129'] })?.field).toBe('shields.ips[0]');
    expect(err({ ips: ['example.com'] })?.field).toBe('shields.ips[0]');
    expect(err({ ips: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) })?.message).toBe(
      'shields.ips: at most 100 entries',
    );
    expect(err({ countries: ['DE', 'XX'] })?.field).toBe('shields.countries[1]');
    expect(err({ countries: ['Germany'] })?.field).toBe('shields.countries[0]');
    expect(err({ pages: ['admin/*'] })?.message).toBe('shields.pages[0]: "admin/*" must start with /');
    expect(err({ hostnames: ['bad host'] })?.field).toBe('shields.hostnames[0]');
    expect(err({ hostnames: 'staging.example.com' })?.message).toBe(
      'shields.hostnames: must be a list of strings',
    );
  });

  it('are normalised, and a list left out keeps what was there', () => {
    const first = normalizeShields(
      { ips: [' 2001:DB8::/32 ', '10.1.2.3'], countries: ['de', 'DE'], hostnames: ['Staging.Example.com.'] },
      NO_SHIELDS,
    );
    expect(first).toEqual({
      ips: ['2001:db8::/32', '10.1.2.3'],
      countries: ['DE'],
      pages: [],
      hostnames: ['staging.example.com'],
    });
    expect(normalizeShields({ pages: ['/admin/*'] }, first)).toEqual({ ...first, pages: ['/admin/*'] });
    expect(storedShields(normalizeShields({ ips: [], countries: [], hostnames: [] }, first))).toBeNull();
  });

  it('match addresses and ranges of both families, countries, paths with wildcards and hosts', () => {
    const check = compileShields(
      normalizeShields(
        {
          ips: ['203.0.113.0/24', '2001:db8::/32', '192.0.2.1'],
          countries: ['FR'],
          pages: ['/admin/*', '/preview'],
          hostnames: ['staging.example.com', '*.test.example.com'],
        },
        NO_SHIELDS,
      ),
    )!;
    expect(check(probe({}))).toBeNull();
    expect(check(probe({ address: '203.0.113.200' }))).toBe('ip');
    expect(check(probe({ address: '::ffff:203.0.113.9' }))).toBe('ip');
    expect(check(probe({ address: '192.0.2.1' }))).toBe('ip');
    expect(check(probe({ address: '192.0.2.2' }))).toBeNull();
    expect(check(probe({ address: '2001:db8:1::5' }))).toBe('ip');
    expect(check(probe({ address: '2001:db9::5' }))).toBeNull();
    expect(check(probe({ country: 'FR' }))).toBe('country');
    expect(check(probe({ country: 'DE' }))).toBeNull();
    expect(check(probe({ path: '/admin/users/7' }))).toBe('page');
    expect(check(probe({ path: '/admin' }))).toBeNull();
    expect(check(probe({ path: '/preview' }))).toBe('page');
    expect(check(probe({ path: '/preview/2' }))).toBeNull();
    expect(check(probe({ path: '/a.b+c(d)' }))).toBeNull();
    expect(check(probe({ host: 'staging.example.com' }))).toBe('hostname');
    expect(check(probe({ host: 'a.test.example.com' }))).toBe('hostname');
    expect(check(probe({ host: 'test.example.com' }))).toBeNull();
    expect(compileShields(NO_SHIELDS)).toBeUndefined();
  });
});
