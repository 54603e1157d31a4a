import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardFallback } from './dashboard.ts';

const dir = mkdtempSync(join(tmpdir(), 'ff-dashboard-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Footfall</title>');
writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
writeFileSync(join(dir, 'assets', 'index-abc.js.gz'), gzipSync('console.log(1)'));
writeFileSync(join(dir, 'secret.txt'), 'not served');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const app = new Hono().get('/api/v1/real', (c) => c.json({ ok: true }));
app.notFound(dashboardFallback(dir));
const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers });

describe('the dashboard fallback', () => {
  it('answers every app path with the page and its policy, so a link to a view loads the app', async () => {
    for (const path of ['/', '/sites/abc', '/sites/abc/live?period=7d&f=country:FR', '/setup?token=x']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain('<title>Footfall</title>');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      // no update check unless the operator names a release list: the page calls nowhere else
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self';");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('lets the page read the release list the operator named, and no other origin', async () => {
    const named = new Hono();
    named.notFound(dashboardFallback(dir, 'https://updates.example.org/footfall/releases.json'));
    const policy = (await named.request('/')).headers.get('content-security-policy');
    expect(policy).toContain("connect-src 'self' https://updates.example.org;");
  });

  it('names the API answers a page asks first, so the browser fetches them with the page', async () => {
    const session = { cookie: 'footfall_session=a-session' };
    expect((await get('/', session)).headers.get('link')).toBe(
      '</api/v1/session>; rel=preload; as=fetch; crossorigin',
    );
    const site = (await get('/sites/abcdefghjk/live', session)).headers.get('link');
    expect(site).toContain('</api/v1/sites/abcdefghjk>; rel=preload; as=fetch; crossorigin');
    expect(site).toContain('</api/v1/sites/abcdefghjk/status>; rel=preload; as=fetch; crossorigin');
    expect((await get('/sites/abcdefghjk/settings', session)).headers.get('link')).not.toContain('status');
  });

  it('asks nothing for a browser without a session, and keeps the readable hint in step with it', async () => {
    const signedOut = await get('/sites/abcdefghjk', { cookie: 'footfall_signed_in=1' });
    expect(signedOut.headers.get('link')).toBeNull();
    expect(signedOut.headers.get('set-cookie')).toMatch(/^footfall_signed_in=; Max-Age=0/);
    const signedIn = await get('/sites/abcdefghjk', { cookie: 'footfall_session=a-session' });
    expect(signedIn.headers.get('set-cookie')).toMatch(
      /^footfall_signed_in=1; Max-Age=\d+; Path=\/; SameSite=Lax$/,
    );
    const both = await get('/', { cookie: 'footfall_session=a-session; footfall_signed_in=1' });
    expect(both.headers.get('set-cookie')).toBeNull();
  });

  it('serves hashed assets for a year, compressed when the browser accepts it', async () => {
    const plain = await get('/assets/index-abc.js');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
    const zipped = await get('/assets/index-abc.js', { 'accept-encoding': 'gzip, br;q=0' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(
      (await get('/assets/index-abc.js', { 'accept-encoding': 'gzip;q=0' })).headers.get('content-encoding'),
    ).toBeNull();
  });

  it('keeps the JSON 404 for the API, for missing assets, and for anything outside the assets', async () => {
    for (const path of [
      '/api/v1/nothing',
      '/_footfall/nothing',
      '/assets/none.js',
      '/assets/index-abc.js.gz',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
      expect(res.headers.get('cache-control'), path).toBeNull();
    }
    // a way out of /assets is refused, or resolved by the URL parser to an app path: never the file
    for (const path of [
      '/assets/../secret.txt',
      '/assets/%2e%2e/secret.txt',
      '/assets/..%2fsecret.txt',
      '/assets/..%5csecret.txt',
    ])
      expect(await (await get(path)).text(), path).not.toContain('not served');
    expect((await app.request('/sites/abc', { method: 'POST' })).status).toBe(404);
    expect((await get('/api/v1/real')).status).toBe(200);
  });

  it('is the JSON 404 everywhere without a built dashboard', async () => {
    const bare = new Hono();
    bare.notFound(dashboardFallback(undefined));
    expect((await bare.request('/')).status).toBe(404);
  });
});
