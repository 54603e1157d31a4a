import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../apps/query/src/engine/report-types.ts';
import { type AccountsApp, type Agent, accountsApp, dumpControl } from '../accounts/harness.ts';
import { type FakeGoogle, type Ga4Day, ga4Days, startFakeGoogle } from '../support/google.ts';

/**
 * Google Analytics 4 through its Data API, against a local server answering the API's documented
 * shapes (the OAuth token endpoint, `runReport` with pages by `rowCount`, 429 for "too many" and
 * for the day's quota): the daily totals and breakdowns stored as Plausible's are, a busy answer
 * waited out, a refused property or key named, and an import stopped by the quota keeping its
 * finished months and going on when run again.
 */
const PROPERTY = '123456789';
const days = (from: string, n: number): Ga4Day[] =>
  ga4Days(from, n, { users: 100, sessions: 120, views: 300, engaged: 80, seconds: 50 });

let google: FakeGoogle;
let h: AccountsApp;
let owner: Agent;
let site = '';
const importGa4 = (body: Record<string, unknown>) =>
  h.call('POST', `/api/v1/sites/${site}/imports?source=ga4`, {
    body: { property: PROPERTY, service_account_key: google.keyFile, ...body },
    agent: owner,
  });
const report = async (query: string) =>
  (await (
    await h.call('GET', `/api/v1/sites/${site}/report?${query}`, { agent: owner })
  ).json()) as Report & {
    imported: unknown;
  };

beforeAll(async () => {
  google = await startFakeGoogle('sc-domain:example.com');
  google.ga4.property = PROPERTY;
  google.ga4.days = days('2025-01-30', 40);
  h = await accountsApp({ env: { FOOTFALL_UNSAFE_GOOGLE_API: google.url } });
  owner = await h.setup();
  const made = await h.call('POST', '/api/v1/sites', {
    body: { domain: 'example.com', timezone: 'UTC' },
    agent: owner,
  });
  site = ((await made.json()) as { site: { id: string } }).site.id;
});
afterAll(async () => {
  await h.cleanup();
  await google.close();
});

describe('a Google Analytics 4 import', () => {
  it('names a property it may not read, or a key Google refuses, and keeps nothing', async () => {
    const before = dumpControl(h.control);
    const wrong = await importGa4({ property: '999', from: '2025-02-01', to: '2025-02-03' });
    expect(await wrong.json()).toMatchObject({ code: 'provider_permission_missing', field: 'property' });
    const key = JSON.parse(google.keyFile) as Record<string, string>;
    const other = await importGa4({
      service_account_key: JSON.stringify({ ...key, client_email: 'someone@else.iam.gserviceaccount.com' }),
      from: '2025-02-01',
      to: '2025-02-03',
    });
    expect(await other.json()).toMatchObject({ code: 'provider_key_rejected', field: 'service_account_key' });
    expect((await importGa4({ from: '2025-02-03', to: '2025-02-01' })).status).toBe(400);
    expect((await importGa4({ property: 'x', from: '2025-02-01', to: '2025-02-03' })).status).toBe(400);
    expect(dumpControl(h.control)).toBe(before);
  });

  it('imports daily totals and breakdowns, paging by rowCount and waiting out a busy answer', async () => {
    google.ga4.busyFirst = 1;
    google.ga4.pageCap = 3;
    const res = await importGa4({ from: '2025-02-01', to: '2025-02-10' });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({
      days: 10,
      skipped: {},
      import: { source: 'ga4', name: `GA4 property ${PROPERTY}`, from: '2025-02-01', to: '2025-02-10' },
    });
    const r = await report('from=2025-02-01&to=2025-02-28');
    expect(r.imported).toEqual({ source: 'ga4', from: '2025-02-01', to: '2025-02-10' });
    expect(r.kpis).toMatchObject({
      visitors: 1000,
      visits: 1200,
      pageviews: 3000,
      bounce_rate: 400 / 1200,
      visit_duration: 50,
    });
    const b = r.breakdowns;
    expect(b.channel?.map((x) => [x.value, x.visits])).toEqual([
      ['Direct', 600],
      ['Organic Search', 600],
    ]);
    expect(b.campaign?.map((x) => [x.value, x.visits])).toEqual([
      [null, 900],
      ['spring_sale', 300],
    ]);
    expect(b.pages.map((x) => [x.value, x.pageviews])).toEqual([
      ['/', 1500],
      ['/pricing', 1500],
    ]);
    expect(b.os?.[0]).toMatchObject({ value: 'macOS', visits: 1200 });
    expect(b.device?.map((x) => x.value).sort()).toEqual(['desktop', 'mobile']);
    // only custom events: GA4's own page_view is not one
    expect(b.events).toEqual([{ value: 'sign_up', visitors: 100, visits: 100, events: 20 }]);
  });

  it('keeps the months it finished when the quota stops it, and goes on when run again', async () => {
    google.ga4.busyFirst = 0;
    google.ga4.pageCap = Number.POSITIVE_INFINITY;
    // February's ten reports are answered, then the day's quota is used up in March
    google.ga4.calls = 0;
    google.ga4.dailyQuotaAt = 11;
    const first = await importGa4({ from: '2025-02-11', to: '2025-03-10' });
    expect(first.status).toBe(201);
    const summary = (await first.json()) as { days: number; skipped: Record<string, number> };
    expect(summary.days).toBe(18);
    expect(Object.keys(summary.skipped)[0]).toMatch(/^not imported yet: run the same import again to go on/);
    expect((await report('from=2025-03-01&to=2025-03-31')).imported).toBeNull();

    google.ga4.dailyQuotaAt = Number.POSITIVE_INFINITY;
    const again = await importGa4({ from: '2025-02-11', to: '2025-03-10' });
    expect(await again.json()).toMatchObject({ days: 10 });
    const whole = await report('from=2025-02-01&to=2025-03-31');
    expect(whole.imported).toEqual({ source: 'ga4', from: '2025-02-01', to: '2025-03-10' });
    expect(whole.kpis.visits).toBe(38 * 120);
  });
});
