import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';
import { loadContract, walEvent } from '../api-docs/documented-app.ts';
import { parseCsv } from '../support/csv.ts';

/**
 * Goals through the API: owners define them (a page path with wildcards, or a custom event with
 * an optional property), viewers read them, and the report and its CSV count each one's
 * conversions among the visits they count.
 */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;
const DAY = '2026-03-02';
const at = (time: string) => Date.parse(`${DAY}T${time}Z`);

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  site = (
    (await (
      await h.call('POST', '/api/v1/sites', { body: { domain: 'goals.example' }, agent: owner })
    ).json()) as {
      site: { id: string };
    }
  ).site.id;
  viewer = await h.addViewer(owner);
  const records = [
    walEvent(site, at('10:00:00'), { visitor: 'visitor-aa', path: '/pricing' }),
    walEvent(site, at('10:01:00'), { visitor: 'visitor-aa', path: '/thanks/pro' }),
    walEvent(site, at('10:02:00'), {
      visitor: 'visitor-aa',
      kind: 'ev',
      name: 'Signup',
      props: { plan: 'pro' },
    }),
    walEvent(site, at('11:00:00'), { visitor: 'visitor-bb', path: '/', device: 'mobile' }),
    walEvent(site, at('11:01:00'), {
      visitor: 'visitor-bb',
      kind: 'ev',
      name: 'Signup',
      props: { plan: 'free' },
      device: 'mobile',
    }),
    walEvent(site, at('12:00:00'), { visitor: 'visitor-cc', path: '/' }),
    walEvent(site, at('13:00:00'), { visitor: 'visitor-dd', path: '/thanks/free' }),
  ];
  await h.deps.analytics.engine.applyBatch({
    records: records.map((record, i) => ({ stream: 'goals', seq: BigInt(i + 1), record })),
  });
});
afterAll(() => h.cleanup());

const goals = () => `/api/v1/sites/${site}/goals`;
const report = async (agent: Agent, query = '') => {
  const res = await h.call('GET', `/api/v1/sites/${site}/report?from=${DAY}&to=${DAY}${query}`, { agent });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    kpis: { visitors: number };
    goals:
      | { name: string; visitors: number; visits: number; conversions: number; conversion_rate: number }[]
      | null;
  };
};

describe('goals', () => {
  it('are defined by owners, checked field by field, and read by everyone who reads the site', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: '', kind: 'page', match: '/x' }, 'name'],
      [{ name: 'x', kind: 'page', match: 'thanks' }, 'match'],
      [{ name: 'x', kind: 'page', match: '/x', prop: { key: 'plan', value: 'pro' } }, 'prop'],
      [{ name: 'x', kind: 'event', match: '' }, 'match'],
      [{ name: 'x', kind: 'event', match: 'Signup', prop: { key: '', value: 'pro' } }, 'prop'],
      [{ name: 'x', kind: 'click', match: '/x' }, 'kind'],
    ];
    for (const [body, field] of bad) {
      const res = await h.call('POST', goals(), { body, agent: owner });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ field });
    }
    const viewerWrites = await h.call('POST', goals(), {
      body: { name: 'Thanks', kind: 'page', match: '/thanks/*' },
      agent: viewer,
    });
    expect(viewerWrites.status).toBe(403);
    for (const body of [
      { name: 'Reached a thank-you page', kind: 'page', match: '/thanks/*' },
      { name: 'Signed up', kind: 'event', match: 'Signup' },
      { name: 'Signed up for Pro', kind: 'event', match: 'Signup', prop: { key: 'plan', value: 'pro' } },
    ]) {
      expect((await h.call('POST', goals(), { body, agent: owner })).status).toBe(201);
    }
    const listed = (await (await h.call('GET', goals(), { agent: viewer })).json()) as {
      goals: { id: string; name: string; prop: unknown }[];
    };
    expect(listed.goals.map((g) => g.name)).toEqual([
      'Reached a thank-you page',
      'Signed up',
      'Signed up for Pro',
    ]);
    expect(listed.goals[2]?.prop).toEqual({ key: 'plan', value: 'pro' });
  });

  it('counts each goal in the report, with the filters, in its CSV, and in the documented shape', async () => {
    const r = await report(viewer);
    expect(r.kpis.visitors).toBe(4);
    expect(r.goals).toEqual([
      expect.objectContaining({
        name: 'Reached a thank-you page',
        visitors: 2,
        visits: 2,
        conversions: 2,
        conversion_rate: 0.5,
      }),
      expect.objectContaining({
        name: 'Signed up',
        visitors: 2,
        visits: 2,
        conversions: 2,
        conversion_rate: 0.5,
      }),
      expect.objectContaining({
        name: 'Signed up for Pro',
        visitors: 1,
        visits: 1,
        conversions: 1,
        conversion_rate: 0.25,
      }),
    ]);
    const contract = await loadContract();
    expect(contract.validate('#/components/schemas/Report', r)).toEqual([]);
    const mobile = await report(viewer, '&f=device:mobile');
    expect(mobile.goals?.map((g) => [g.visitors, g.conversion_rate])).toEqual([
      [0, 0],
      [1, 1],
      [0, 0],
    ]);
    const csv = await h.call('GET', `/api/v1/sites/${site}/export.csv?from=${DAY}&to=${DAY}`, {
      agent: viewer,
    });
    const rows = parseCsv(await csv.text());
    // goals come last, their conversions in the pageviews column
    expect(rows.slice(-3)).toEqual([
      ['goal', 'Reached a thank-you page', '2', '2', '2', '', '', ''],
      ['goal', 'Signed up', '2', '2', '2', '', '', ''],
      ['goal', 'Signed up for Pro', '1', '1', '1', '', '', ''],
    ]);
  });

  it("breaks a goal down by its events' properties, and filters the report by a goal or a property", async () => {
    const res = await h.call(
      'GET',
      `/api/v1/sites/${site}/report/goal-props?goal=${encodeURIComponent('Signed up')}&from=${DAY}&to=${DAY}`,
      { agent: viewer },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { goal: { name: string }; properties: unknown };
    expect(body.goal.name).toBe('Signed up');
    expect(body.properties).toEqual([
      {
        key: 'plan',
        values: [
          { value: 'free', visitors: 1, conversions: 1 },
          { value: 'pro', visitors: 1, conversions: 1 },
        ],
      },
    ]);
    expect((await loadContract()).validate('#/components/schemas/GoalProps', body)).toEqual([]);
    const pro = await report(viewer, `&f=${encodeURIComponent('goal:Signed up for Pro')}`);
    expect(pro.kpis.visitors).toBe(1);
    expect(pro.goals?.map((g) => g.conversion_rate)).toEqual([1, 1, 1]);
    const free = await report(viewer, `&f=${encodeURIComponent('prop:plan:free')}`);
    expect(free.kpis.visitors).toBe(1);
    const unknown = await h.call('GET', `/api/v1/sites/${site}/report?from=${DAY}&to=${DAY}&f=goal:Nope`, {
      agent: viewer,
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ field: 'f' });
  });

  it('changes and deletes a goal; with the module off the routes answer 404 and the report has no goals', async () => {
    const [first] = (
      (await (await h.call('GET', goals(), { agent: owner })).json()) as { goals: { id: string }[] }
    ).goals;
    const changed = await h.call('PATCH', `${goals()}/${first!.id}`, {
      body: { match: '/thanks/pro' },
      agent: owner,
    });
    expect(changed.status).toBe(200);
    expect((await report(viewer)).goals?.[0]).toMatchObject({ match: '/thanks/pro', visitors: 1 });
    expect((await h.call('DELETE', `${goals()}/${first!.id}`, { agent: owner })).status).toBe(204);
    expect((await h.call('DELETE', `${goals()}/${first!.id}`, { agent: owner })).status).toBe(404);
    expect((await report(viewer)).goals).toHaveLength(2);
    const off = await h.call('PATCH', `/api/v1/sites/${site}`, {
      body: { modules: { goals: false } },
      agent: owner,
    });
    expect(off.status).toBe(200);
    expect((await h.call('GET', goals(), { agent: owner })).status).toBe(404);
    expect((await report(viewer)).goals).toBeNull();
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { goals: true } }, agent: owner });
    expect((await report(viewer)).goals).toHaveLength(2);
  });
});
