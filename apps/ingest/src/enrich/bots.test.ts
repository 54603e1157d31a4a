import { describe, expect, it } from 'vitest';
import { classifyBot } from './bots.ts';

const people = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Edg/122.0.2365.92',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 320.0.2.33.106 (iPhone14,5; iOS 17_3; en_US; en; scale=3.00; 1170x2532; 567402410)',
  // An Electron desktop app with a person behind it is not headless.
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.36.140 Chrome/120.0.6099.56 Electron/28.0.0 Safari/537.36',
];

const headless = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
  'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:60.0) Gecko/20100101 SlimerJS/1.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_3) AppleWebKit/537.36 (KHTML, like Gecko) Electron/1.4.15 Safari/537.36 Nightmare',
  'Mozilla/5.0 (linux) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/22.1.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Cypress/13.6.0 Chrome/118.0.5993.159 Electron/27.1.3 Safari/537.36',
  'Mozilla/5.0 Chrome/10.0.613.0 Safari/534.15 Zombie.js/6.1.4',
];

const listed = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'curl/8.5.0',
  'python-requests/2.31.0',
  'Wget/1.21.4',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
];

describe('classifyBot', () => {
  it.each(people)('lets a person through: %s', (ua) => {
    expect(classifyBot(ua)).toBeNull();
  });

  it.each(headless)('calls a headless or driven browser headless: %s', (ua) => {
    expect(classifyBot(ua)).toBe('headless');
  });

  it.each(listed)('calls a known bot or tool a listed bot: %s', (ua) => {
    expect(classifyBot(ua)).toBe('list');
  });

  it.each([undefined, '', '   '])('calls a missing or blank user agent empty_ua (%j)', (ua) => {
    expect(classifyBot(ua)).toBe('empty_ua');
  });

  it('calls a browser headless when its client hints name HeadlessChrome, in either header form', () => {
    const ua = people[0]!;
    const hint = '"Chromium";v="122", "Not(A:Brand";v="24", "HeadlessChrome";v="122"';
    expect(classifyBot(ua, new Headers({ 'Sec-CH-UA': hint }))).toBe('headless');
    expect(classifyBot(ua, { 'sec-ch-ua': hint })).toBe('headless');
    expect(classifyBot(ua, { 'sec-ch-ua': '"Chromium";v="122", "Google Chrome";v="122"' })).toBeNull();
  });
});
