import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';

/**
 * Modules switched off per site: every route of a module that is off answers 404, reports leave
 * it out, and what it stored is back when it is switched on again.
 */
let h: AccountsApp;
let owner: Agent;
let site: string;

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  const made = await h.call('POST', '/api/v1/sites', { body: { domain: 'modules.example' }, agent: owner });
  site = ((await made.json()) as { site: { id: string } }).site.id;
});
afterAll(() => h.cleanup());

const modules = (body: Record<string, boolean>) =>
  h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: body }, agent: owner });

describe('modules', () => {
  it('are all on for a new site, and each switches off and on alone', async () => {
    const read = await h.call('GET', `/api/v1/sites/${site}`, { agent: owner });
    expect(((await read.json()) as { site: { modules: unknown } }).site.modules).toEqual({
      notes: true,
      goals: true,
      funnels: true,
      revenue: true,
      retention: true,
      vitals: true,
      crawlers: true,
      milestones: true,
      shares: true,
    });
    const off = await modules({ retention: false });
    expect(((await off.json()) as { site: { modules: unknown } }).site.modules).toEqual({
      notes: true,
      goals: true,
      funnels: true,
      revenue: true,
      retention: false,
      vitals: true,
      crawlers: true,
      milestones: true,
      shares: true,
    });
    const bad = await h.call('PATCH', `/api/v1/sites/${site}`, {
      body: { modules: { heatmaps: false } },
      agent: owner,
    });
    expect(bad.status).toBe(400);
    expect((await modules({ retention: true })).status).toBe(200);
  });

  it('refuses every route of notes while off, and gives the notes back when on', async () => {
    const note = await h.call('POST', `/api/v1/sites/${site}/annotations`, {
      body: { date: '2026-11-20', text: 'kept while off' },
      agent: owner,
    });
    const id = ((await note.json()) as { annotation: { id: string } }).annotation.id;
    await modules({ notes: false });
    const base = `/api/v1/sites/${site}/annotations`;
    for (const [method, path, body] of [
      ['GET', base, undefined],
      ['POST', base, { date: '2026-11-21', text: 'x' }],
      ['PATCH', `${base}/${id}`, { text: 'x' }],
      ['DELETE', `${base}/${id}`, undefined],
    ] as const) {
      const res = await h.call(method, path, { body, agent: owner });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe(
        'the notes module is off for this site',
      );
    }
    await modules({ notes: true });
    const back = await h.call('GET', base, { agent: owner });
    expect(
      ((await back.json()) as { annotations: { text: string }[] }).annotations.map((n) => n.text),
    ).toEqual(['kept while off']);
  });

  it('refuses retention, vitals and the robots report while off', async () => {
    for (const [module, path] of [
      ['retention', 'report/retention'],
      ['vitals', 'report/vitals'],
      ['crawlers', 'report/crawlers'],
      ['crawlers', 'report/ai-search'],
    ] as const) {
      await modules({ [module]: false });
      expect((await h.call('GET', `/api/v1/sites/${site}/${path}`, { agent: owner })).status, module).toBe(
        404,
      );
      await modules({ [module]: true });
      expect((await h.call('GET', `/api/v1/sites/${site}/${path}`, { agent: owner })).status, module).toBe(
        200,
      );
    }
  });

  it('refuses the payment connections while revenue is off, and the report answers no revenue', async () => {
    const made = await h.call('POST', `/api/v1/sites/${site}/payments/connections`, {
      body: { provider: 'custom' },
      agent: owner,
    });
    expect(made.status).toBe(201);
    const withRevenue = await h.call('GET', `/api/v1/sites/${site}/report`, { agent: owner });
    expect(((await withRevenue.json()) as { revenue: unknown }).revenue).not.toBeNull();
    await modules({ revenue: false });
    const base = `/api/v1/sites/${site}/payments/connections`;
    expect((await h.call('GET', base, { agent: owner })).status).toBe(404);
    expect((await h.call('POST', base, { body: { provider: 'custom' }, agent: owner })).status).toBe(404);
    const report = await h.call('GET', `/api/v1/sites/${site}/report`, { agent: owner });
    expect((await report.json()) as { revenue: unknown; kpis: Record<string, unknown> }).toMatchObject({
      revenue: null,
    });
    await modules({ revenue: true });
    const listed = await h.call('GET', base, { agent: owner });
    expect(((await listed.json()) as { connections: unknown[] }).connections).toHaveLength(1);
  });
});
