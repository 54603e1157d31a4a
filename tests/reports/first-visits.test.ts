import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFootfall } from '../support/footfall.ts';

/**
 * What a newcomer does first, against the real processes: a `www.` site from FOOTFALL_SITES and
 * one added through the API, events from a server that sends no event id, and report dates out of
 * range.
 */
const TOKEN = 'first-visits-token-0123456789';
const SETUP = 'first-visits-setup-0123456789';
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let ff: Awaited<ReturnType<typeof startFootfall>>;
beforeAll(async () => {
  ff = await startFootfall({
    FOOTFALL_SITES: 'www.example.org',
    FOOTFALL_API_TOKEN: TOKEN,
    FOOTFALL_SETUP_TOKEN: SETUP,
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
  });
});
afterAll(() => ff?.stop());

const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${ff.url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
  });
  return { status: res.status, body: (await res.json()) as T };
};
const today = () => new Date().toISOString().slice(0, 10);

/** Posts a pageview as a server sender would: no event id, the visitor's user agent passed on. */
const serverPageview = (site: string, url: string) =>
  fetch(`${ff.url}/api/e`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': UA },
    body: JSON.stringify({ s: site, k: 'pv', u: url, r: '' }),
  });

/** Waits until the site's report for today counts `pageviews`. */
async function pageviewsReach(site: string, pageviews: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await api<{ kpis: { pageviews: number } }>(
      `/sites/${site}/report?from=${today()}&to=${today()}`,
    );
    if (r.body.kpis.pageviews >= pageviews || Date.now() > deadline) return r.body.kpis.pageviews;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a site registered with www.', () => {
  it('counts pages of www.example.org and example.org when FOOTFALL_SITES names www.example.org', async () => {
    const { body } = await api<{ sites: { id: string; domain: string }[] }>('/sites');
    expect(body.sites.map((s) => s.domain)).toEqual(['example.org']);
    const site = body.sites[0]!.id;
    for (const url of [
      'https://www.example.org/',
      'https://example.org/pricing',
      'https://blog.example.org/a',
    ]) {
      expect((await serverPageview(site, url)).status).toBe(202);
    }
    expect(await pageviewsReach(site, 3)).toBe(3);
  });

  it('counts both forms for a site an owner added as www.example.com', async () => {
    const setup = await fetch(`${ff.url}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: SETUP, email: 'owner@example.com', password: 'a long enough password' }),
    });
    expect(setup.status).toBe(201);
    const cookie = setup.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf_token } = (await setup.json()) as { csrf_token: string };
    const created = await fetch(`${ff.url}/api/v1/sites`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-footfall-csrf': csrf_token },
      body: JSON.stringify({ domain: 'https://www.example.com/' }),
    });
    expect(created.status).toBe(201);
    const { site } = (await created.json()) as { site: { id: string; domain: string } };
    expect(site.domain).toBe('example.com');
    expect((await serverPageview(site.id, 'https://www.example.com/')).status).toBe(202);
    expect((await serverPageview(site.id, 'https://example.com/')).status).toBe(202);
    // a sender without event ids is not deduplicated: the same body twice is two pageviews
    expect((await serverPageview(site.id, 'https://example.com/')).status).toBe(202);
    expect(await pageviewsReach(site.id, 3)).toBe(3);

    // the time zone the owner chose is shown back as chosen, and reports work in it
    for (const zone of ['Europe/Kyiv', 'Asia/Kolkata', 'Asia/Ho_Chi_Minh']) {
      const patched = await fetch(`${ff.url}/api/v1/sites/${site.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', cookie, 'x-footfall-csrf': csrf_token },
        body: JSON.stringify({ timezone: zone }),
      });
      expect(((await patched.json()) as { site: { timezone: string } }).site.timezone).toBe(zone);
      const shown = await api<{ site: { timezone: string } }>(`/sites/${site.id}`);
      expect(shown.body.site.timezone).toBe(zone);
      const report = await api<{ time_zone: string }>(`/sites/${site.id}/report`);
      expect(report.status).toBe(200);
      expect(report.body.time_zone).toBe(zone);
    }
  });
});

describe('report dates', () => {
  it('refuses dates outside 1970-01-01 to 9999-12-31 on every period route with a 400 naming the parameter', async () => {
    const { body } = await api<{ sites: { id: string }[] }>('/sites');
    const site = body.sites[0]!.id;
    for (const route of ['report', 'export.csv', 'report/heatmap', 'report/retention']) {
      for (const [query, field] of [
        ['to=0000-01-01', 'to'],
        ['from=0000-01-01&to=0000-01-02', 'from'],
        ['from=1969-12-31&to=1970-01-02', 'from'],
      ] as const) {
        const r = await api<{ code: string; field: string }>(`/sites/${site}/${route}?${query}`);
        expect(r.status, `${route}?${query}`).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_parameter', field });
      }
    }
    for (const compare of ['year', 'previous']) {
      const r = await api<{ field: string }>(
        `/sites/${site}/report?from=1970-01-01&to=1970-01-31&compare=${compare}`,
      );
      expect(r.status).toBe(400);
      expect(r.body.field).toBe('compare');
    }
  });
});
