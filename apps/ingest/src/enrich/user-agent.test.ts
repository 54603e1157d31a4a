import { describe, expect, it } from 'vitest';
import { parseUserAgent, type UserAgentInfo } from './user-agent.ts';

type Row = [string, string, Omit<UserAgentInfo, never>];

const table: Row[] = [
  [
    'iOS Safari on an iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    { browser: 'Safari', browserVersion: '17', os: 'iOS', osVersion: '17', device: 'mobile' },
  ],
  [
    'Chrome on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/123.0.6312.52 Mobile/15E148 Safari/604.1',
    { browser: 'Chrome', browserVersion: '123', os: 'iOS', osVersion: '17', device: 'mobile' },
  ],
  [
    'Safari on an older iPad',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    { browser: 'Safari', browserVersion: '16', os: 'iOS', osVersion: '16', device: 'tablet' },
  ],
  [
    'Safari on a Mac',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15',
    { browser: 'Safari', browserVersion: '17', os: 'macOS', osVersion: '10.15', device: 'desktop' },
  ],
  [
    'Chrome on a Mac',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
    { browser: 'Chrome', browserVersion: '122', os: 'macOS', osVersion: '10.15', device: 'desktop' },
  ],
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Edg/122.0.2365.92',
    { browser: 'Edge', browserVersion: '122', os: 'Windows', osVersion: '10', device: 'desktop' },
  ],
  [
    'Firefox on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:124.0) Gecko/20100101 Firefox/124.0',
    { browser: 'Firefox', browserVersion: '124', os: 'Windows', osVersion: '10', device: 'desktop' },
  ],
  [
    'Chrome on Windows 7',
    'Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36',
    { browser: 'Chrome', browserVersion: '109', os: 'Windows', osVersion: '7', device: 'desktop' },
  ],
  [
    'Internet Explorer 11',
    'Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko',
    { browser: 'Internet Explorer', browserVersion: '11', os: 'Windows', osVersion: '7', device: 'desktop' },
  ],
  [
    'Firefox on Linux',
    'Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0',
    { browser: 'Firefox', browserVersion: '124', os: 'Linux', osVersion: null, device: 'desktop' },
  ],
  [
    'Chrome on Android',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Mobile Safari/537.36',
    { browser: 'Chrome', browserVersion: '122', os: 'Android', osVersion: '10', device: 'mobile' },
  ],
  [
    'Samsung Internet',
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    { browser: 'Samsung Internet', browserVersion: '24', os: 'Android', osVersion: '14', device: 'mobile' },
  ],
  [
    'Chrome on an Android tablet',
    'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
    { browser: 'Chrome', browserVersion: '122', os: 'Android', osVersion: '13', device: 'tablet' },
  ],
  [
    'Chrome on a Chromebook',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
    { browser: 'Chrome', browserVersion: '122', os: 'ChromeOS', osVersion: '14541', device: 'desktop' },
  ],
  [
    'the Google app on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/307.0.614402536 Mobile/15E148 Safari/604.1',
    { browser: 'Google App', browserVersion: '307', os: 'iOS', osVersion: '17', device: 'mobile' },
  ],
  [
    'an Android WebView',
    'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36',
    { browser: 'Android WebView', browserVersion: '116', os: 'Android', osVersion: '13', device: 'mobile' },
  ],
  [
    'the Facebook in-app browser (no version)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.3;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
    { browser: 'Facebook', browserVersion: null, os: 'iOS', osVersion: '17', device: 'mobile' },
  ],
  [
    'a smart TV, counted as desktop',
    'Mozilla/5.0 (Linux; Android 9; AFTMM) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118 Mobile Safari/537.36',
    { browser: 'Chrome', browserVersion: '118', os: 'Android', osVersion: '9', device: 'desktop' },
  ],
  [
    'Yandex Browser',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.1.0.0 Safari/537.36',
    { browser: 'Yandex Browser', browserVersion: '24', os: 'Windows', osVersion: '10', device: 'desktop' },
  ],
  [
    'something unparseable',
    'totally-unknown-client',
    { browser: null, browserVersion: null, os: null, osVersion: null, device: 'desktop' },
  ],
];

describe('parseUserAgent', () => {
  it.each(table)('reads %s', (_label, ua, expected) => {
    expect(parseUserAgent(ua)).toEqual(expected);
  });

  it('gives the same answer from its cache as from a fresh parse', () => {
    const ua = table[0]![1];
    const first = parseUserAgent(ua);
    expect(parseUserAgent(ua)).toBe(first);
    expect(first.browser).toBe('Safari');
  });

  it('keeps every field within the WAL record lengths for an absurd user agent', () => {
    const ua = `Mozilla/5.0 (Windows NT 10.0) ${'X'.repeat(100)}/${'9'.repeat(80)} Chrome/${'1'.repeat(60)}.0`;
    const info = parseUserAgent(ua);
    expect(info.browser === null || info.browser.length <= 64).toBe(true);
    expect(info.browserVersion === null || info.browserVersion.length <= 32).toBe(true);
    expect(info.os === null || info.os.length <= 64).toBe(true);
  });
});
