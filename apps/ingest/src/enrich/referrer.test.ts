import { describe, expect, it } from 'vitest';
import { hostKey, isSameSite, normalisePath, pageOf, parseUrl, referrerOf } from './referrer.ts';

describe('pageOf', () => {
  it.each([
    ['https://example.com/', 'example.com', '/'],
    ['https://example.com', 'example.com', '/'],
    ['https://www.Example.com/Blog/?utm_source=x#top', 'example.com', '/Blog'],
    ['https://shop.example.com:8443/cart/', 'shop.example.com', '/cart'],
    ['https://example.com/caf%C3%A9/menu', 'example.com', '/café/menu'],
    ['https://example.com/a%2Fb', 'example.com', '/a%2Fb'],
    ['https://example.com/bad%E0%A4%A', 'example.com', '/bad%E0%A4%A'],
    ['https://example.com/docs//', 'example.com', '/docs/'],
    ['http://localhost:3000/x', 'localhost', '/x'],
    ['https://xn--mnchen-3ya.de/', 'xn--mnchen-3ya.de', '/'],
    ['https://münchen.de/', 'xn--mnchen-3ya.de', '/'],
  ])('reads %s as host %s and path %s', (u, host, path) => {
    expect(pageOf(new URL(u))).toEqual({ host, path });
  });

  it('never returns a path longer than the WAL field', () => {
    expect(normalisePath(`/${'a'.repeat(3000)}`)).toHaveLength(2048);
  });
});

describe('hostKey and isSameSite', () => {
  it('lowercases and drops www. and a trailing dot', () => {
    expect(hostKey('WWW.Example.COM.')).toBe('example.com');
    expect(hostKey('www2.example.com')).toBe('www2.example.com');
  });

  it('counts subdomains, not look-alike suffixes, as the same site', () => {
    expect(isSameSite('blog.example.com', 'example.com')).toBe(true);
    expect(isSameSite('example.com', 'example.com')).toBe(true);
    expect(isSameSite('notexample.com', 'example.com')).toBe(false);
    expect(isSameSite('example.com.evil.io', 'example.com')).toBe(false);
  });
});

describe('referrerOf', () => {
  it.each([
    ['https://www.google.com/', 'google.com', '/'],
    ['https://news.ycombinator.com/item?id=123', 'news.ycombinator.com', '/item'],
    ['https://L.Facebook.com/l.php?u=https%3A%2F%2Fexample.com', 'l.facebook.com', '/l.php'],
    ['https://t.co/AbC123', 't.co', '/AbC123'],
    ['https://chatgpt.com/', 'chatgpt.com', '/'],
    ['http://old-blog.net/posts/2020/', 'old-blog.net', '/posts/2020'],
  ])('keeps the external referrer %s as %s %s, never its query', (r, host, path) => {
    expect(referrerOf(r, 'example.com', 'example.com')).toEqual({ referrerHost: host, referrerPath: path });
  });

  it('reads an Android app referrer by its package name', () => {
    expect(referrerOf('android-app://com.google.android.gm/', 'example.com')).toEqual({
      referrerHost: 'com.google.android.gm',
      referrerPath: null,
    });
  });

  it.each<[string | undefined, string]>([
    ['', 'empty'],
    [undefined, 'absent'],
    ['not a url', 'unparsable'],
    ['chrome-extension://abcdef/page.html', 'a browser extension'],
    ['about:blank', 'about:blank'],
    ['https://example.com/pricing', 'the same host'],
    ['https://www.example.com/pricing', 'the same host with www.'],
    ['https://blog.example.com/post', 'a subdomain of the site'],
    ['https://EXAMPLE.com./', 'the same host in odd case with a trailing dot'],
  ])('gives no referrer for %j (%s)', (r) => {
    expect(referrerOf(r, 'example.com', 'example.com')).toEqual({ referrerHost: null, referrerPath: null });
  });

  it('counts a referrer from the site domain as internal when the page is on a subdomain', () => {
    expect(referrerOf('https://example.com/', 'app.example.com', 'example.com').referrerHost).toBeNull();
    expect(referrerOf('https://docs.example.com/', 'app.example.com', 'example.com').referrerHost).toBeNull();
  });

  it('falls back to the page host as the site when the site domain is unknown', () => {
    expect(referrerOf('https://a.example.com/', 'example.com').referrerHost).toBeNull();
    expect(referrerOf('https://other.com/', 'example.com').referrerHost).toBe('other.com');
  });

  it('keeps a look-alike domain as an external referrer', () => {
    expect(referrerOf('https://notexample.com/', 'example.com', 'example.com').referrerHost).toBe(
      'notexample.com',
    );
  });
});

describe('parseUrl', () => {
  it('returns null instead of throwing', () => {
    expect(parseUrl('::')).toBeNull();
    expect(parseUrl(null)).toBeNull();
    expect(parseUrl('https://a.b/')?.hostname).toBe('a.b');
  });
});
