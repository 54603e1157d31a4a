import { updateSite } from '@footfall/control';
import type { WalEvent } from '@footfall/schema';
import { Umami } from '@umami/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * The endpoints of Plausible's and Umami's trackers on the real gateway (apps/ingest/src/compat.ts):
 * their bodies become Footfall events in the WAL, with the rules of `POST /api/e`. Plausible's
 * bodies are the ones its script sends (script version 36, read from @plausible-analytics/tracker;
 * tests/tracker/plausible.test.ts runs the script itself in Chromium); Umami's come from its own
 * Node client, @umami/node.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const events = async () => (await gw.records()).filter((r): r is WalEvent => r.t === 'event');
/** The events stored since `before` (the WAL's event count then). */
const since = async (before: number) => (await events()).slice(before);

/** A POST as Plausible's script makes it: JSON in a text/plain body, so no CORS preflight. */
const plausible = (body: unknown, headers: Record<string, string> = {}) =>
  gw.post('/api/event', body, { 'content-type': 'text/plain', ...headers });

describe('POST /api/event (Plausible)', () => {
  it("stores a pageview of the script's body, the site found by its domain", async () => {
    const before = (await events()).length;
    const res = await plausible({
      n: 'pageview',
      v: 36,
      u: 'https://example.com/pricing?utm_source=newsletter',
      d: 'example.com',
      r: 'https://news.ycombinator.com/item?id=1',
      w: 1280,
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toBe('');
    const [stored] = await since(before);
    expect(stored).toMatchObject({
      site: gw.site.id,
      kind: 'pv',
      path: '/pricing',
      referrerHost: 'news.ycombinator.com',
      utmSource: 'newsletter',
      screenW: 1280,
      idMode: 'hash',
    });
  });

  it('takes the first of several domains that is a site, with or without www., and the long field names', async () => {
    const before = (await events()).length;
    for (const d of ['elsewhere.org,www.example.com', 'WWW.EXAMPLE.COM']) {
      expect((await plausible({ name: 'pageview', url: 'https://example.com/a', domain: d })).status).toBe(
        202,
      );
    }
    // no domain: the page's host names the site, as Plausible does
    expect((await plausible({ n: 'pageview', u: 'https://www.example.com/b' })).status).toBe(202);
    expect((await since(before)).map((e) => [e.site, e.path])).toEqual([
      [gw.site.id, '/a'],
      [gw.site.id, '/a'],
      [gw.site.id, '/b'],
    ]);
  });

  it('stores custom events with their props, revenue as two props, and a 404 sent as a number', async () => {
    const before = (await events()).length;
    const page = { u: 'https://example.com/checkout', d: 'example.com' };
    await plausible({
      ...page,
      n: 'Purchase',
      p: { plan: 'pro', seats: 3, empty: '', list: [1] },
      $: { amount: 49.5, currency: 'EUR' },
    });
    await plausible({ ...page, n: 'Signup', p: JSON.stringify({ method: 'google' }) }); // older scripts: a JSON string
    await plausible({ ...page, n: 404 });
    const stored = await since(before);
    expect(stored.map((e) => [e.kind, e.name, e.props])).toEqual([
      ['ev', 'Purchase', { plan: 'pro', seats: 3, revenue_amount: '49.5', revenue_currency: 'EUR' }],
      ['ev', 'Signup', { method: 'google' }],
      ['ev', '404', null],
    ]);
  });

  it('stores an engagement event as one, its scroll depth capped at 100', async () => {
    const before = (await events()).length;
    const res = await plausible({
      n: 'engagement',
      u: 'https://example.com/post',
      d: 'example.com',
      sd: 150,
      e: 12_000,
      v: 36,
    });
    expect(res.status).toBe(202);
    const [stored] = await since(before);
    expect(stored).toMatchObject({ kind: 'en', path: '/post', engagedMs: 12_000, scroll: 100 });
  });

  it('refuses what it cannot store with an error that names the field, and stores nothing', async () => {
    const before = (await events()).length;
    const cases: [unknown, number, string | undefined][] = [
      [{ n: 'pageview', u: 'https://unknown.example.net/', d: 'unknown.example.net' }, 404, 'd'],
      [{ u: 'https://example.com/', d: 'example.com' }, 400, 'n'],
      [{ n: 'pageview', d: 'example.com' }, 400, 'u'],
      [{ n: 'pageview', u: 'https://other.org/x', d: 'example.com' }, 400, 'u'],
      [{ n: 'pageview', u: 'https://example.com/', d: 'example.com', r: 'not a url' }, 400, 'r'],
      [{ n: 'engagement', u: 'https://example.com/', d: 'example.com' }, 400, 'e'],
      [[1, 2], 400, undefined],
      ['{not json', 400, undefined],
    ];
    for (const [body, status, field] of cases) {
      const res = await plausible(body);
      const answer = (await res.json()) as { code: string; field?: string };
      expect([res.status, answer.field], JSON.stringify(body)).toEqual([status, field]);
    }
    const other = await gw.post(
      '/api/event',
      { n: 'pageview', u: 'https://example.com/' },
      { 'content-type': 'text/html' },
    );
    expect(other.status).toBe(415);
    // Do Not Track: answered as accepted, nothing stored, as on /api/e
    expect(
      (await plausible({ n: 'pageview', u: 'https://example.com/', d: 'example.com' }, { dnt: '1' })).status,
    ).toBe(202);
    expect(await since(before)).toEqual([]);
  });
});

describe('POST /api/send (Umami)', () => {
  const client = () => {
    const umami = new Umami();
    umami.init({ websiteId: gw.site.id, hostUrl: gw.url });
    return umami;
  };

  it("stores @umami/node's pageview with its page, referrer, screen and language", async () => {
    const before = (await events()).length;
    const res = await client().track({
      url: '/docs/install?utm_campaign=launch',
      hostname: 'example.com',
      referrer: 'https://www.google.com/',
      screen: '1920x1080',
      language: 'fr-FR',
      title: 'Install',
    });
    expect(res.status).toBe(202);
    const [stored] = await since(before);
    expect(stored).toMatchObject({
      site: gw.site.id,
      kind: 'pv',
      path: '/docs/install',
      utmCampaign: 'launch',
      referrerHost: 'google.com',
      screenW: 1920,
      idMode: 'hash',
    });
    expect(stored?.language).toMatch(/^fr/);
  });

  it('stores a named event with its data as props, on the home page when no url is sent', async () => {
    const before = (await events()).length;
    expect(
      (await client().track('signup', { plan: 'pro', seats: 3, nested: { x: 1 } } as never)).status,
    ).toBe(202);
    const [stored] = await since(before);
    expect(stored).toMatchObject({ kind: 'ev', name: 'signup', path: '/', props: { plan: 'pro', seats: 3 } });
  });

  it('finds the site by the Umami website id recorded on it, so the tag need not change yet', async () => {
    const umamiId = '4FB7FA4C-5B46-438D-94B3-3A8FB9BC2E8B';
    await updateSite(gw.control, gw.cookieless.id, { umamiWebsiteId: umamiId });
    const umami = new Umami();
    umami.init({ websiteId: umamiId, hostUrl: gw.url });
    const before = (await events()).length;
    expect((await umami.track({ url: '/', hostname: 'quiet.example.org' })).status).toBe(202);
    expect((await since(before)).map((e) => e.site)).toEqual([gw.cookieless.id]);
  });

  it('answers identify and stores nothing about the person', async () => {
    const before = (await events()).length;
    expect((await client().identify({ email: 'someone@example.com' })).status).toBe(202);
    expect(await since(before)).toEqual([]);
  });

  it('refuses an unknown website, a page on another domain and a body of another shape, naming the field', async () => {
    const before = (await events()).length;
    const cases: [unknown, number, string | undefined][] = [
      [{ type: 'event', payload: { website: 'no-such-site', url: '/' } }, 404, 'payload.website'],
      [{ type: 'event', payload: { url: '/' } }, 400, 'payload.website'],
      [{ type: 'event', payload: { website: gw.site.id, url: 'https://other.org/' } }, 400, 'payload.url'],
      [{ type: 'event', payload: { website: gw.site.id, name: 'x'.repeat(200) } }, 400, 'payload.name'],
      [{ type: 'event' }, 400, 'payload'],
      [{ type: 'track', payload: { website: gw.site.id } }, 400, 'type'],
    ];
    for (const [body, status, field] of cases) {
      const res = await gw.post('/api/send', body);
      const answer = (await res.json()) as { field?: string };
      expect([res.status, answer.field], JSON.stringify(body)).toEqual([status, field]);
    }
    expect(await since(before)).toEqual([]);
  });

  it("answers the CORS preflight of Umami's script, which posts JSON from the site's origin", async () => {
    const res = await fetch(`${gw.url}/api/send`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
  });
});
