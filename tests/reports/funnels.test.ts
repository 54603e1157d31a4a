import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';
import { walEvent } from '../api-docs/documented-app.ts';

/** Funnels through the API: owners define them, everyone who reads the site reads their counts. */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;

const json = async <T>(res: Response) => (await res.json()) as T;

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  site = (
    await json<{ site: { id: string } }>(
      await h.call('POST', '/api/v1/sites', { body: { domain: 'funnels.example' }, agent: owner }),
    )
  ).site.id;
  viewer = await h.addViewer(owner);
  const at = Date.UTC(2026, 2, 1, 8, 0, 0);
  const records = [
    walEvent(site, at, { visitor: 'a', path: '/' }),
    walEvent(site, at + 60_000, { visitor: 'a', path: '/pricing' }),
    walEvent(site, at + 120_000, { visitor: 'a', kind: 'ev', name: 'Signup', path: '/pricing' }),
    walEvent(site, at, { visitor: 'b', path: '/' }),
    walEvent(site, at + 60_000, { visitor: 'b', path: '/pricing' }),
    walEvent(site, at, { visitor: 'c', path: '/' }),
  ];
  await h.deps.analytics.engine.applyBatch({
    records: records.map((record, i) => ({ stream: 'funnels', seq: BigInt(i + 1), record })),
  });
});
afterAll(() => h.cleanup());

const base = () => `/api/v1/sites/${site}/funnels`;
const steps = [
  { kind: 'page', match: '/', name: 'Home' },
  { kind: 'page', match: '/pricing' },
  { kind: 'event', match: 'Signup' },
];

describe('funnels', () => {
  it('are defined by owners, checked, and read by viewers', async () => {
    const made = await h.call('POST', base(), { body: { name: ' Signup path ', steps }, agent: owner });
    expect(made.status).toBe(201);
    const funnel = (await json<{ funnel: { id: string; steps: { name: string }[] } }>(made)).funnel;
    expect(funnel).toMatchObject({ name: 'Signup path', within_days: null });
    expect(funnel.steps.map((s) => s.name)).toEqual(['Home', '/pricing', 'Signup']);
    const refused = async (body: unknown, field: string) => {
      const r = await h.call('POST', base(), { body, agent: owner });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(await r.json()).toMatchObject({ field });
    };
    await refused({ name: 'x', steps: steps.slice(0, 1) }, 'steps');
    await refused({ name: 'x', steps: [steps[0], { kind: 'page', match: 'pricing' }] }, 'steps.1.match');
    await refused({ name: 'x', steps, within_days: 91 }, 'within_days');
    await refused({ name: '', steps }, 'name');
    expect((await h.call('POST', base(), { body: { name: 'x', steps }, agent: viewer })).status).toBe(403);
    const list = await json<{ funnels: unknown[] }>(await h.call('GET', base(), { agent: viewer }));
    expect(list.funnels).toHaveLength(1);
    const changed = await h.call('PATCH', `${base()}/${funnel.id}`, {
      body: { within_days: 7 },
      agent: owner,
    });
    expect((await json<{ funnel: { within_days: number } }>(changed)).funnel.within_days).toBe(7);
  });

  it('counts each step with its drop-off in the funnels report', async () => {
    const r = await json<{
      funnels: { name: string; steps: { name: string; visitors: number; dropped: number; rate: number }[] }[];
    }>(
      await h.call('GET', `/api/v1/sites/${site}/report/funnels?from=2026-03-01&to=2026-03-01`, {
        agent: viewer,
      }),
    );
    expect(
      r.funnels[0]!.steps.map(({ name, visitors, dropped, rate }) => ({ name, visitors, dropped, rate })),
    ).toEqual([
      { name: 'Home', visitors: 3, dropped: 0, rate: 1 },
      { name: '/pricing', visitors: 2, dropped: 1, rate: 0.6667 },
      { name: 'Signup', visitors: 1, dropped: 1, rate: 0.3333 },
    ]);
  });

  it('leaves with its module', async () => {
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { funnels: false } }, agent: owner });
    expect((await h.call('GET', base(), { agent: owner })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/sites/${site}/report/funnels`, { agent: owner })).status).toBe(404);
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { funnels: true } }, agent: owner });
    expect((await h.call('GET', base(), { agent: owner })).status).toBe(200);
  });
});
