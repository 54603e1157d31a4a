import createClient, { type Client } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { NAMED_PERIODS, resolveNamedPeriod } from '../../../query/src/engine/named-periods.ts';
import { preloads, reportPreload } from '../../../query/src/page-preloads.ts';
import type { paths } from '../api/schema.d.ts';
import { type PeriodKey, resolvePeriod } from './period.ts';
import { reportQuery, type Scope } from './scope.ts';
import { readView } from './view.ts';

/**
 * The report the page names in its Link header must be the very URL the dashboard then asks for,
 * or the browser fetches it twice: both are computed here from the same page URLs, the
 * dashboard's with its own code and its own API client.
 */
async function dashboardAsks(search: string): Promise<string> {
  const view = readView(new URLSearchParams(search));
  const today = '2026-11-28';
  const range = resolvePeriod(view.period, today, '2025-01-01', { from: view.from, to: view.to });
  const scope = { site: { id: 'abcdefghjk' }, path: '/sites/abcdefghjk', view, range, today, firstDay: null };
  return askedBy((client) =>
    client.GET('/api/v1/sites/{site}/report', {
      params: { path: { site: 'abcdefghjk' }, query: reportQuery(scope as unknown as Scope) },
    }),
  );
}

/** The path and query the API client asks for in `call`. */
async function askedBy(call: (client: Client<paths>) => Promise<unknown>): Promise<string> {
  let asked = '';
  const client = createClient<paths>({
    baseUrl: 'http://footfall.test',
    fetch: async (request: Request) => {
      asked = request.url;
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    },
  });
  await call(client);
  return asked.slice('http://footfall.test'.length);
}

describe("the report named in a report page's Link header", () => {
  it.each([
    '',
    'period=7d',
    'period=today&bucket=hour',
    'period=lastmonth&compare=previous',
    'period=12mo&compare=year&metric=pageviews',
    'f=page:/pricing&f=channel:Search&f=page:/pricing',
    'f=referrer:&f=country:DE&period=91d',
    'f=prop:plan:pro%2Bteam&f=page:/a%20b?c=1',
    'compare=off&panel=sources&search=x',
    'period=custom&from=2026-01-01&to=2026-01-31',
    'period=custom&from=2026-11-01&to=2026-11-01&f=country:DE&compare=previous&bucket=hour',
  ])('is the one the dashboard asks for, for ?%s', async (search) => {
    const preloaded = reportPreload(new URLSearchParams(search));
    expect(preloaded).not.toBeNull();
    expect(`/api/v1/sites/abcdefghjk/report?${preloaded}`).toBe(await dashboardAsks(search));
  });

  it.each([
    'period=all',
    'period=custom&from=2026-01-31&to=2026-01-01',
    'period=custom&from=2026-02-30&to=2026-03-01',
    'period=custom&from=2026-01-01',
    'compare=custom&cfrom=2026-01-01&cto=2026-01-31',
    'period=fortnight',
    'bucket=minute',
    'period=7d&segment=tiohkbvt3m',
  ])('is left out for ?%s, which only the script resolves', (search) => {
    expect(reportPreload(new URLSearchParams(search))).toBeNull();
  });

  it('is named only on the report of a site known to have visits, not on its live view', () => {
    const visited = new Set(['abcdefghjk']);
    const modules = () => ({ notes: true, milestones: true });
    const none = new URLSearchParams();
    const report = '</api/v1/sites/abcdefghjk/report?period=30d>';
    expect(preloads('/sites/abcdefghjk', none, undefined, visited, modules)).toContain(report);
    expect(preloads('/sites/abcdefghjk', none, undefined, new Set(), modules)).not.toContain('/report');
    expect(preloads('/sites/abcdefghjk/live', none, undefined, visited, modules)).not.toContain('/report');
    // `/sites/<id>` alone opens the live view when that was chosen last; with a query, the report
    expect(preloads('/sites/abcdefghjk', none, 'a=1; footfall_mode=live', visited, modules)).not.toContain(
      '/report',
    );
    expect(
      preloads('/sites/abcdefghjk', new URLSearchParams('period=7d'), 'footfall_mode=live', visited, modules),
    ).toContain('</api/v1/sites/abcdefghjk/report?period=7d>');
  });

  it("names the rest of the report's first view as the dashboard asks for it, each module's only while it is on", async () => {
    const links = (modules: { notes: boolean; milestones: boolean }, search = 'period=7d&f=page:/') =>
      preloads(
        '/sites/abcdefghjk',
        new URLSearchParams(search),
        undefined,
        new Set(['abcdefghjk']),
        () => modules,
      )
        .split(', ')
        .map((l) => l.slice(1, l.indexOf('>')));
    // the dashboard's calls (NowPill, Milestones, Report's notes), through its client
    const ask = (path: string, query?: Record<string, unknown>) =>
      askedBy((client) =>
        client.GET(path as '/api/v1/sites/{site}/now', {
          params: { path: { site: 'abcdefghjk' }, query: query as never },
        }),
      );
    expect(links({ notes: true, milestones: true })).toEqual([
      '/api/v1/session',
      '/api/v1/sites/abcdefghjk',
      '/api/v1/sites/abcdefghjk/status',
      await ask('/api/v1/sites/{site}/now', { limit: 1 }),
      await ask('/api/v1/sites/{site}/milestones'),
      await dashboardAsks('period=7d&f=page:/'),
      await ask('/api/v1/sites/{site}/annotations', { period: '7d' }),
    ]);
    expect(links({ notes: false, milestones: false })).not.toContain('/api/v1/sites/abcdefghjk/milestones');
    expect(links({ notes: false, milestones: false }).some((l) => l.includes('/annotations'))).toBe(false);
    // a custom range by its days, the notes too
    const custom = links({ notes: true, milestones: true }, 'period=custom&from=2026-01-01&to=2026-01-31');
    expect(custom).toContain(await dashboardAsks('period=custom&from=2026-01-01&to=2026-01-31'));
    expect(custom).toContain(
      await ask('/api/v1/sites/{site}/annotations', { from: '2026-01-01', to: '2026-01-31' }),
    );
    // All time waits for the script (only it knows the first day), the rest does not
    const all = links({ notes: true, milestones: true }, 'period=all');
    expect(all.some((l) => l.includes('/report') || l.includes('/annotations'))).toBe(false);
    expect(all).toContain('/api/v1/sites/abcdefghjk/now?limit=1');
  });
});

describe("the milestone moment's card named in a report page's Link header", () => {
  it('is the card the moment shows, once per colour scheme, and only with milestones on', async () => {
    const header = (milestones: boolean) =>
      preloads(
        '/sites/abcdefghjk',
        new URLSearchParams(),
        undefined,
        new Set(['abcdefghjk']),
        () => ({ notes: false, milestones }),
        () => ({ path: '/api/v1/sites/abcdefghjk/milestones/first_sale/1/card', amount: 'show' }),
      );
    // the dashboard's milestoneCardUrl: theme, then amount
    const card = (theme: 'light' | 'dark') =>
      askedBy((client) =>
        client.GET('/api/v1/sites/{site}/milestones/{kind}/{step}/card', {
          params: {
            path: { site: 'abcdefghjk', kind: 'first_sale', step: '1' },
            query: { theme, amount: 'show' },
          },
          parseAs: 'text',
        }),
      );
    const links = header(true).split(', ');
    expect(links).toContain(
      `<${await card('light')}>; rel=preload; as=image; media="not all and (prefers-color-scheme: dark)"`,
    );
    expect(links).toContain(
      `<${await card('dark')}>; rel=preload; as=image; media="(prefers-color-scheme: dark)"`,
    );
    expect(header(false)).not.toContain('/card');
  });
});

describe('named periods', () => {
  it("resolve on the server to the days the dashboard's period picker shows", () => {
    for (const today of ['2026-11-28', '2026-01-01', '2024-03-31', '2025-12-31']) {
      for (const period of NAMED_PERIODS) {
        expect(resolveNamedPeriod(period, today), `${period} on ${today}`).toEqual(
          resolvePeriod(period as PeriodKey, today, null),
        );
      }
    }
  });
});
