import { createFunnel, createGoal } from '@footfall/control';
import type { WalEvent } from '@footfall/schema';
import { expect } from 'vitest';
import type { Agent } from '../accounts/harness.ts';
import { type DocumentedApp, walEvent } from './documented-app.ts';

/**
 * The report routes on a site with data: a few visits loaded straight into the in-memory engine
 * (as the tailer would), then every read route called with typical and edge parameters, each
 * answer checked against the document by the app's `call`.
 */

const MINUTE = 60_000;

/**
 * Two visitors, three visits, pageviews, a custom event with properties and an engagement event;
 * one visit on a subdomain.
 */
export async function loadVisits(h: DocumentedApp, site: string, now: number): Promise<WalEvent[]> {
  const at = (minutesAgo: number) => now - minutesAgo * MINUTE;
  const records: WalEvent[] = [
    walEvent(site, at(26 * 60), { path: '/', channel: 'Email', utmSource: 'newsletter', utmMedium: 'email' }),
    walEvent(site, at(26 * 60 - 1), { path: '/pricing' }),
    walEvent(site, at(3), {
      path: '/docs',
      channel: 'Referral',
      referrerHost: 'news.ycombinator.com',
      referrerPath: '/item',
    }),
    walEvent(site, at(2), { kind: 'ev', name: 'Signup', props: { plan: 'pro', seats: 3, trial: true } }),
    walEvent(site, at(1), { kind: 'en', engagedMs: 5400, scroll: 80 }),
    walEvent(site, at(10), {
      visitor: 'visitor-two',
      host: 'blog.example.com',
      path: '/blog',
      device: 'mobile',
      city: 'Berlin',
    }),
  ];
  const result = await h.deps.analytics.engine.applyBatch({
    records: records.map((record, i) => ({ stream: 'apidocs', seq: BigInt(i + 1), record })),
  });
  expect(result.events).toBe(records.length);
  return records;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function reportReads(h: DocumentedApp, site: string, viewer: Agent, now: number) {
  const base = `/api/v1/sites/${site}`;
  const get = (path: string) => h.call('GET', `${base}${path}`, { agent: viewer });
  // three days back, so the visit of 26 hours ago is inside whatever the hour of the run
  const period = `from=${day(now - 3 * 86_400_000)}&to=${day(now)}`;

  const full = await get(
    `/report?${period}&compare=previous&daily=1&deep=1&f=page:/docs&f=referrer:&limit=5`,
  );
  expect(full.status).toBe(200);
  const plain = await get(`/report?${period}`);
  expect(plain.json<{ kpis: { visits: number } }>().kpis.visits).toBe(3);
  expect(plain.json()).toMatchObject({ bucket: 'day', compare: null, daily: null });
  expect((await get('/report')).status).toBe(200); // the default period, empty
  expect(
    (await get(`/report?${period}&bucket=day&compare=custom&cfrom=2026-01-01&cto=2026-01-02`)).status,
  ).toBe(200);

  const csv = await get(`/export.csv?${period}`);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(csv.text).toContain('channel,Referral');

  const now5 = await get('/now?limit=1');
  expect(now5.json()).toMatchObject({ visitors_30m: 2, more: 1 });
  expect((await get('/now')).json<{ recent: unknown[] }>().recent).toHaveLength(2);
  const events = await get('/events?limit=10');
  expect(events.json<{ events: { kind: string }[] }>().events.length).toBeGreaterThan(0);
  expect((await get(`/report/heatmap?${period}&f=device:desktop`)).status).toBe(200);
  expect((await get(`/report/retention?${period}`)).status).toBe(200);
  expect((await get(`/report/vitals?${period}&f=device:desktop`)).status).toBe(200);
  expect((await get(`/report/crawlers?${period}&f=page:/docs`)).status).toBe(200);
  expect((await get(`/report/ai-search?${period}&f=device:desktop`)).status).toBe(200);
  await createGoal(h.control, site, { name: 'Signed up', kind: 'event', match: 'Signup' });
  const props = await get(`/report/goal-props?goal=Signed%20up&${period}&f=goal:Signed%20up`);
  expect(props.json<{ properties: { key: string }[] }>().properties.map((p) => p.key)).toEqual([
    'plan',
    'seats',
    'trial',
  ]);
  await createFunnel(h.control, site, {
    name: 'Docs to signup',
    steps: [
      { kind: 'page', match: '/docs*' },
      { kind: 'event', match: 'Signup' },
    ],
  });
  const funnels = await get(`/report/funnels?${period}&f=device:desktop`);
  expect(funnels.json<{ funnels: { steps: unknown[] }[] }>().funnels[0]!.steps).toHaveLength(2);
  const charts = await get(`/report/charts?${period}&bucket=day&f=device:desktop`);
  expect(charts.json<{ channels: unknown[]; conversions: unknown }>().conversions).not.toBeNull();
  const moments = await get(`/moments?${period}&bucket=hour`);
  expect(moments.json<{ buckets: unknown[] }>().buckets.length).toBeGreaterThan(0);
  const card = await get('/card?period=24h&theme=dark');
  expect(card.headers.get('content-type')).toBe('image/png');
  const channels = await get(`/report/breakdown?dim=channel&${period}`);
  expect(channels.json<{ rows: { value: string }[] }>().rows.map((r) => r.value)).toContain('Referral');
  const searched = await get(`/report/breakdown?dim=pages&${period}&search=DOC&limit=5`);
  expect(searched.json<{ rows: { value: string }[] }>().rows.every((r) => r.value.includes('/doc'))).toBe(
    true,
  );
  expect((await get(`/report/breakdown?dim=events&${period}`)).status).toBe(200);
  // a site that tracks a subdomain: its hosts, and a report of one
  const hosts = await get(`/report/breakdown?dim=hostname&${period}`);
  // one visitor each: by value then
  expect(hosts.json<{ rows: { value: string; visits: number }[] }>().rows).toMatchObject([
    { value: 'blog.example.com', visits: 1 },
    { value: 'example.com', visits: 2 },
  ]);
  const blog = await get(`/report?${period}&f=${encodeURIComponent('hostname:blog.example.com')}`);
  expect(blog.json<{ kpis: { visits: number; pageviews: number } }>().kpis).toMatchObject({
    visits: 1,
    pageviews: 1,
  });
  const blogPages = await get(
    `/report/breakdown?dim=pages&${period}&f=${encodeURIComponent('hostname:blog.example.com')}`,
  );
  expect(blogPages.json<{ rows: { value: string }[] }>().rows.map((r) => r.value)).toEqual(['/blog']);
  expect((await get('/status')).json()).toMatchObject({ state: 'active' });
  const trends = await h.call('GET', '/api/v1/site-trends?days=7', { agent: viewer });
  const [trend] = trends.json<{ trends: { visitors: number[]; state: string }[] }>().trends;
  expect(trend?.visitors).toHaveLength(7);
  expect(trend?.state).toBe('active');
  const journey = await get('/journey/visitor-one');
  expect(journey.json<{ visits: unknown[] }>().visits).toHaveLength(2);
  expect((await get('/journey/nobody-at-all')).json()).toEqual({ visitor: 'nobody-at-all', visits: [] });
}

/** 400 naming the parameter, for each kind of wrong parameter. */
export async function reportParameterErrors(h: DocumentedApp, site: string, viewer: Agent) {
  const base = `/api/v1/sites/${site}`;
  const cases: [string, string][] = [
    ['/report?zz=1', 'zz'],
    ['/report?from=2026-02-30', 'from'],
    ['/report?from=2026-03-02&to=2026-03-01', 'to'],
    ['/report?limit=0', 'limit'],
    ['/report?f=colour:red', 'f'],
    ['/export.csv?compare=custom', 'cfrom'],
    ['/now?limit=201', 'limit'],
    ['/events?limit=abc', 'limit'],
    ['/report/heatmap?bucket=day', 'bucket'],
    ['/report/retention?from=yesterday', 'from'],
    ['/report/vitals?to=tomorrow', 'to'],
    ['/report/crawlers?from=2026-13-01', 'from'],
    ['/report/ai-search?f=colour:red', 'f'],
    ['/report/goal-props', 'goal'],
    ['/report/funnels?to=tomorrow', 'to'],
    ['/report/charts?bucket=year', 'bucket'],
    ['/moments?bucket=week', 'bucket'],
    ['/card?period=1y', 'period'],
    ['/report/goal-props?goal=Nothing', 'goal'],
    ['/report?f=goal:Nothing', 'f'],
    ['/report?f=prop:plan', 'f'],
    ['/journey/short', 'visitor'],
    ['/report/breakdown?dim=colour', 'dim'],
    ['/report/breakdown?dim=channel&compare=previous', 'compare'],
    ['/report/breakdown?dim=pages&search=', 'search'],
  ];
  const wrong: string[] = [];
  const trends = await h.call('GET', '/api/v1/site-trends?days=0', { agent: viewer });
  if (trends.json<{ field?: string }>().field !== 'days')
    wrong.push('/site-trends?days=0: want 400 naming days');
  for (const [path, field] of cases) {
    const res = await h.call('GET', `${base}${path}`, { agent: viewer });
    const got = res.status === 400 ? res.json<{ field?: string }>().field : res.status;
    if (got !== field) wrong.push(`${path}: want 400 naming ${field}, got ${got}`);
  }
  expect(wrong).toEqual([]);
}

/** The live stream: `ready`, then the visits of a committed batch. */
export async function liveStream(h: DocumentedApp, site: string, viewer: Agent, now: number) {
  const stream = await h.live(
    `/api/v1/sites/${site}/live`,
    { agent: viewer },
    () =>
      h.deps.analytics.live.publish([
        {
          stream: 'apidocs',
          seq: 100n,
          record: walEvent(site, now, { path: '/live', referrerHost: 'example.org' }),
        },
      ]),
    (events) => events.some((e) => e.event === 'visits'),
  );
  expect(stream.status).toBe(200);
  expect(stream.events.map((e) => e.event)).toEqual(['ready', 'visits']);
  expect(stream.events[1]?.data).toMatchObject([{ path: '/live', referrer: 'example.org' }]);
}

/**
 * The report of several sites: a second site with one visit of its own beside the first, every
 * number the sum of the two sites' reports, each page row naming its site; a site the caller may
 * not read is refused (403), and a caller who may read none is told so (404).
 */
export async function allSitesFlow(
  h: DocumentedApp,
  owner: Agent,
  viewer: Agent,
  site: string,
  now: number,
  noSites: DocumentedApp,
  apiToken: string,
) {
  const second = (
    await h.call('POST', '/api/v1/sites', { body: { domain: 'second.example.org' }, agent: owner })
  ).json<{ site: { id: string } }>().site.id;
  const result = await h.deps.analytics.engine.applyBatch({
    records: [
      {
        stream: 'apidocs-2',
        seq: 1n,
        record: walEvent(second, now - 5 * MINUTE, { visitor: 'v-2', path: '/' }),
      },
    ],
  });
  expect(result.events).toBe(1);
  const period = `from=${day(now - 3 * 86_400_000)}&to=${day(now)}`;
  type Kpis = { kpis: { visitors: number; visits: number; pageviews: number } };
  const one = (id: string) =>
    h.call('GET', `/api/v1/sites/${id}/report?${period}`, { agent: viewer }).then((r) => r.json<Kpis>().kpis);
  const [a, b] = [await one(site), await one(second)];

  const all = await h.call('GET', `/api/v1/report?${period}&compare=previous&limit=5`, { agent: viewer });
  expect(all.status).toBe(200);
  const body = all.json<
    Kpis & {
      sites: { id: string; share: number }[];
      breakdowns: { pages: { site: string; value: string }[] };
    }
  >();
  expect(body.kpis).toMatchObject({
    visitors: a.visitors + b.visitors,
    visits: a.visits + b.visits,
    pageviews: a.pageviews + b.pageviews,
  });
  expect(body.sites.map((s) => s.id).sort()).toEqual([site, second].sort());
  expect(body.sites.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1);
  expect(body.breakdowns.pages).toContainEqual(expect.objectContaining({ site: second, value: '/' }));
  const chosen = await h.call('GET', `/api/v1/report?sites=${second}&${period}`, { agent: viewer });
  expect(chosen.json<Kpis>().kpis.visits).toBe(b.visits);
  const refused = await h.call('GET', `/api/v1/report?sites=${site},zzzzzzzzzz`, { agent: viewer });
  expect(refused.status).toBe(403);
  expect(refused.json<{ message: string }>().message).toBe('you may not read site zzzzzzzzzz');
  const few = await h.call('GET', `/api/v1/report?${period}&breakdowns=channel,pages`, { agent: viewer });
  const fewBody = few.json<Kpis & { breakdowns: Record<string, unknown[]> }>();
  expect(Object.keys(fewBody.breakdowns).sort()).toEqual(['channel', 'events', 'pages']);
  expect(fewBody.kpis).toEqual(body.kpis);
  expect((await h.call('GET', '/api/v1/report?breakdowns=colour', { agent: viewer })).status).toBe(400);
  expect((await h.call('GET', '/api/v1/report?sites=', { agent: viewer })).status).toBe(400);
  expect((await h.call('GET', '/api/v1/report?daily=1', { agent: viewer })).status).toBe(400);
  expect((await noSites.call('GET', '/api/v1/report', { bearer: apiToken })).status).toBe(404);
  await h.call('DELETE', `/api/v1/sites/${second}`, { agent: owner });
}
