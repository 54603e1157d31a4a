import { describe, expect, it } from 'vitest';
import { addressKey, normaliseAddress } from './ip.ts';

describe('normaliseAddress', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    [' 203.0.113.9 ', '203.0.113.9'],
    ['203.0.113.9:51234', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::FFFF:203.0.113.9', '203.0.113.9'],
    ['0:0:0:0:0:ffff:cb00:7109', '203.0.113.9'],
    ['::ffff:cb00:7109', '203.0.113.9'],
    ['[::ffff:203.0.113.9]:443', '203.0.113.9'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['[2001:db8::1]:8080', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::1', '::1'],
    ['::', '::'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
  ])('writes %j as %j', (raw, expected) => {
    expect(normaliseAddress(raw)).toBe(expected);
  });

  it.each([
    '',
    'unknown',
    '999.1.1.1',
    '1.2.3',
    'example.com',
    '2001:db8:::1',
    '[2001:db8::1',
    undefined,
    null,
  ])('rejects %j', (raw) => {
    expect(normaliseAddress(raw)).toBeNull();
  });
});

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it.each([
    ['2001:db8:aaaa:bbbb:1:2:3:4', '2001:db8:aaaa:bbbb::/64'],
    ['2001:DB8:AAAA:BBBB::99', '2001:db8:aaaa:bbbb::/64'],
    ['2001:0db8:aaaa:bbbb:ffff:ffff:ffff:ffff', '2001:db8:aaaa:bbbb::/64'],
    ['[2001:db8:aaaa:bbbb::1]:443', '2001:db8:aaaa:bbbb::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['2001:db8:0:1::5', '2001:db8:0:1::/64'],
    ['fe80::1%en0', 'fe80::/64'],
    ['::1', '::/64'],
  ])('reduces %j to its /64: %j', (raw, expected) => {
    expect(addressKey(raw)).toBe(expected);
  });

  it('gives every address in one /64 the same key and a neighbouring /64 another', () => {
    const a = addressKey('2001:db8:1:2:aaaa::1');
    expect(addressKey('2001:db8:1:2:ffff:eeee:dddd:cccc')).toBe(a);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(a);
  });

  it('gives null for what is not an address', () => {
    expect(addressKey('nope')).toBeNull();
  });
});
