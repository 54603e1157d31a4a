import { describe, expect, it } from 'vitest';
import { type AddressRequest, clientAddress, type TrustProxy } from './client-address.ts';

const SOCKET = '10.0.0.2';
const req = (headers: Record<string, string>, over: Partial<AddressRequest> = {}): AddressRequest => ({
  socketAddress: SOCKET,
  headers,
  platform: null,
  proxyKeyValid: false,
  ...over,
});
const forged = {
  'x-forwarded-for': '6.6.6.6, 203.0.113.9',
  'x-real-ip': '7.7.7.7',
  'fly-client-ip': '8.8.8.8',
  'cf-connecting-ip': '9.9.9.9',
};

describe('clientAddress', () => {
  describe("mode 'none'", () => {
    const trust: TrustProxy = { mode: 'none' };
    it('uses the socket address and ignores every forwarding header', () => {
      expect(clientAddress(trust, req(forged))).toBe(SOCKET);
    });
    it('unwraps an IPv4-mapped socket address', () => {
      expect(clientAddress(trust, req({}, { socketAddress: '::ffff:198.51.100.4' }))).toBe('198.51.100.4');
    });
    it('gives null when not even the socket address is known', () => {
      expect(clientAddress(trust, req({}, { socketAddress: undefined }))).toBeNull();
    });
  });

  describe("mode 'xff'", () => {
    const trust: TrustProxy = { mode: 'xff' };
    it('takes the rightmost entry, never the leftmost one a client can forge', () => {
      expect(clientAddress(trust, req({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9' }))).toBe('203.0.113.9');
      expect(clientAddress(trust, req({ 'x-forwarded-for': '203.0.113.9' }))).toBe('203.0.113.9');
      expect(clientAddress(trust, req({ 'x-forwarded-for': '6.6.6.6,2001:db8::7' }))).toBe('2001:db8::7');
    });
    it('reads the last of repeated headers in a Node record', () => {
      expect(
        clientAddress(trust, req({}, { headers: { 'x-forwarded-for': ['6.6.6.6', '203.0.113.9'] } })),
      ).toBe('203.0.113.9');
    });
    it('falls back to the socket when the rightmost entry is not an address', () => {
      expect(clientAddress(trust, req({ 'x-forwarded-for': '203.0.113.9, unknown' }))).toBe(SOCKET);
      expect(clientAddress(trust, req({}))).toBe(SOCKET);
    });
    it('does not trust X-Real-IP in this mode', () => {
      expect(clientAddress(trust, req({ 'x-real-ip': '7.7.7.7' }))).toBe(SOCKET);
    });
  });

  describe("mode 'header'", () => {
    const trust: TrustProxy = { mode: 'header', header: 'X-Real-IP' };
    it('reads the named header, in any case, from both header forms', () => {
      expect(clientAddress(trust, req(forged))).toBe('7.7.7.7');
      expect(clientAddress(trust, req({}, { headers: new Headers({ 'X-Real-IP': '2001:DB8::9' }) }))).toBe(
        '2001:db8::9',
      );
    });
    it('falls back to the socket without the header', () => {
      expect(clientAddress(trust, req({ 'x-forwarded-for': '203.0.113.9' }))).toBe(SOCKET);
    });
  });

  describe("mode 'auto'", () => {
    const trust: TrustProxy = { mode: 'auto' };
    it('uses the socket address off a known platform', () => {
      expect(clientAddress(trust, req(forged))).toBe(SOCKET);
      expect(clientAddress(trust, req(forged, { platform: 'some-unknown-host' }))).toBe(SOCKET);
    });
    it.each([
      ['fly', '8.8.8.8'],
      ['railway', '7.7.7.7'],
      ['render', '9.9.9.9'],
      ['heroku', '203.0.113.9'],
      ['koyeb', '203.0.113.9'],
    ])('on %s reads that platform’s own header', (platform, expected) => {
      expect(clientAddress(trust, req(forged, { platform }))).toBe(expected);
    });
    it('tries the platform’s second header when the first is missing', () => {
      expect(
        clientAddress(trust, req({ 'x-envoy-external-address': '203.0.113.5' }, { platform: 'railway' })),
      ).toBe('203.0.113.5');
    });
    it('falls back to the socket when the platform header is absent', () => {
      expect(clientAddress(trust, req({}, { platform: 'fly' }))).toBe(SOCKET);
    });
  });

  describe('with a valid site proxy key', () => {
    it.each<TrustProxy>([
      { mode: 'none' },
      { mode: 'xff' },
      { mode: 'auto' },
      { mode: 'header', header: 'fly-client-ip' },
    ])('trusts X-Real-IP in mode %j', (trust) => {
      expect(clientAddress(trust, req(forged, { proxyKeyValid: true, platform: 'fly' }))).toBe('7.7.7.7');
    });
    it('ignores X-Real-IP without the key', () => {
      expect(clientAddress({ mode: 'none' }, req({ 'x-real-ip': '7.7.7.7' }))).toBe(SOCKET);
    });
    it('falls back to the mode when X-Real-IP is missing or junk', () => {
      expect(
        clientAddress(
          { mode: 'xff' },
          req({ 'x-real-ip': 'junk', 'x-forwarded-for': '203.0.113.9' }, { proxyKeyValid: true }),
        ),
      ).toBe('203.0.113.9');
    });
  });
});
