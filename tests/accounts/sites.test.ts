import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp, PASSWORD } from './harness.ts';

let h: AccountsApp;
let owner: Agent;
beforeEach(async () => {
  h = await accountsApp();
  owner = await h.setup();
});
afterEach(() => h.cleanup());

type SiteJson = { id: string; domain: string; proxy_key?: string; timezone: string; currency: string };

async function site(domain: string, extra: Record<string, unknown> = {}): Promise<SiteJson> {
  const res = await h.call('POST', '/api/v1/sites', { body: { domain, ...extra }, agent: owner });
  expect(res.status).toBe(201);
  return ((await res.json()) as { site: SiteJson }).site;
}

async function viewer(email = 'viewer@example.com'): Promise<{ agent: Agent; id: string }> {
  const res = await h.call('POST', '/api/v1/people', {
    body: { email, role: 'viewer', password: PASSWORD },
    agent: owner,
  });
  const id = ((await res.json()) as { person: { id: string } }).person.id;
  h.control.raw.prepare('UPDATE people SET must_change_password = 0 WHERE id = ?').run(id);
  return { agent: await h.signIn(email), id };
}

describe('sites over the API', () => {
  it('creates a site from a pasted URL with validated time zone and currency', async () => {
    const s = await site('https://Shop.Example.com/checkout?x=1', {
      timezone: 'America/New_York',
      currency: 'eur',
      colour: '#AA00FF',
    });
    expect(s).toMatchObject({
      domain: 'shop.example.com',
      timezone: 'America/New_York',
      currency: 'EUR',
      colour: '#aa00ff',
    });
    expect(s.id).toMatch(/^[a-z2-9]{10}$/);
    expect(s.proxy_key).toBeTruthy();
    const bad = await h.call('POST', '/api/v1/sites', {
      body: { domain: 'b.com', timezone: 'Nowhere/City' },
      agent: owner,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'timezone' });
  });

  it('sets the consent bar, shows it to viewers too, and refuses bad settings naming the field without changing anything', async () => {
    const s = await site('a.com', { consent_bar: true, consent_background: '#0B3D91' });
    expect(s).toMatchObject({
      consent_bar: true,
      consent_text: null,
      consent_background: '#0b3d91',
      consent_foreground: null,
    });
    const patch = (body: unknown) => h.call('PATCH', `/api/v1/sites/${s.id}`, { body, agent: owner });
    const changed = await patch({ consent_text: 'Count my visit?', consent_foreground: '#FFFFFF' });
    expect(((await changed.json()) as { site: SiteJson }).site).toMatchObject({
      consent_text: 'Count my visit?',
      consent_foreground: '#ffffff',
    });
    const refusals: [Record<string, unknown>, string][] = [
      [{ consent_bar: 'yes' }, 'consent_bar'],
      [{ consent_text: 'x'.repeat(301) }, 'consent_text'],
      [{ consent_text: 'ring \u0007' }, 'consent_text'],
      [{ consent_background: 'navy' }, 'consent_background'],
      [{ consent_bar: false, consent_foreground: '#0b3d92' }, 'consent_foreground'], // unreadable
    ];
    for (const [body, field] of refusals) {
      const res = await patch(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_body', field });
    }
    const v = await viewer();
    const seen = await h.call('GET', `/api/v1/sites/${s.id}`, { agent: v.agent });
    expect(((await seen.json()) as { site: SiteJson }).site).toMatchObject({
      consent_bar: true,
      consent_text: 'Count my visit?',
      consent_background: '#0b3d91',
      consent_foreground: '#ffffff',
    });
  });

  it('keeps a retention of its own, or follows the instance with null, and refuses one out of range', async () => {
    const s = await site('a.com');
    expect(s).toMatchObject({ retention_days: null });
    const patch = (body: unknown) => h.call('PATCH', `/api/v1/sites/${s.id}`, { body, agent: owner });
    const set = await patch({ retention_days: 400 });
    expect(((await set.json()) as { site: unknown }).site).toMatchObject({ retention_days: 400 });
    for (const bad of [29, 36_501, 90.5, '90']) {
      const res = await patch({ retention_days: bad, currency: 'EUR' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ field: 'retention_days' });
    }
    const got = await h.call('GET', `/api/v1/sites/${s.id}`, { agent: owner });
    expect(((await got.json()) as { site: unknown }).site).toMatchObject({
      retention_days: 400,
      currency: 'USD',
    });
    const cleared = await patch({ retention_days: null });
    expect(((await cleared.json()) as { site: unknown }).site).toMatchObject({ retention_days: null });
  });

  it("records the site's Umami website id, lower case, one site each, and clears it with null or empty", async () => {
    const a = await site('a.com');
    const b = await site('b.com');
    const patch = (id: string, body: unknown) =>
      h.call('PATCH', `/api/v1/sites/${id}`, { body, agent: owner });
    const umami = 'F3D4A8E0-1C2B-4D5E-8F90-ABCDEF012345';
    const set = await patch(a.id, { umami_website_id: umami });
    expect(((await set.json()) as { site: unknown }).site).toMatchObject({
      umami_website_id: umami.toLowerCase(),
    });
    const taken = await patch(b.id, { umami_website_id: umami.toLowerCase() });
    expect([taken.status, ((await taken.json()) as { field: string }).field]).toEqual([
      409,
      'umami_website_id',
    ]);
    for (const bad of ['not-a-uuid', 42]) {
      const res = await patch(b.id, { umami_website_id: bad });
      expect([res.status, ((await res.json()) as { field: string }).field]).toEqual([
        400,
        'umami_website_id',
      ]);
    }
    for (const none of [null, '']) {
      const cleared = await patch(a.id, { umami_website_id: none });
      expect(((await cleared.json()) as { site: unknown }).site).toMatchObject({ umami_website_id: null });
    }
  });

  it('rotates the proxy key', async () => {
    const s = await site('a.com');
    const res = await h.call('POST', `/api/v1/sites/${s.id}/proxy-key`, { agent: owner });
    const rotated = ((await res.json()) as { site: SiteJson }).site;
    expect(rotated.proxy_key).not.toBe(s.proxy_key);
  });

  it('deletes a site and asks the engine to delete its analytics', async () => {
    const s = await site('a.com');
    expect((await h.call('DELETE', `/api/v1/sites/${s.id}`, { agent: owner })).status).toBe(204);
    expect(h.deleted).toEqual([s.id]);
    expect((await h.call('GET', `/api/v1/sites/${s.id}`, { agent: owner })).status).toBe(404);
  });

  it('shows a limited viewer only the chosen sites, the same 404 for the others as for unknown ids, and no proxy keys', async () => {
    const a = await site('a.com');
    const b = await site('b.com');
    const v = await viewer();
    const put = await h.call('PUT', `/api/v1/site-access/${v.id}`, { body: { sites: [a.id] }, agent: owner });
    expect(await put.json()).toEqual({ person_id: v.id, email: 'viewer@example.com', sites: [a.id] });
    const list = (await (await h.call('GET', '/api/v1/sites', { agent: v.agent })).json()) as {
      sites: SiteJson[];
    };
    expect(list.sites.map((s) => s.domain)).toEqual(['a.com']);
    expect(list.sites[0]).not.toHaveProperty('proxy_key');
    const hidden = await h.call('GET', `/api/v1/sites/${b.id}`, { agent: v.agent });
    const unknown = await h.call('GET', '/api/v1/sites/nosuchsite', { agent: v.agent });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual(await unknown.json());
    const access = await (await h.call('GET', '/api/v1/site-access', { agent: owner })).json();
    expect(access).toEqual({ viewers: [{ person_id: v.id, email: 'viewer@example.com', sites: [a.id] }] });
  });

  it('keeps one account-wide layout that viewers read within their sites', async () => {
    const a = await site('a.com');
    const b = await site('b.com');
    const layout = {
      order: [b.id, a.id, 'gone'],
      pins: [b.id],
      groups: [{ name: 'Shops', sites: [a.id, b.id] }],
    };
    const saved = await h.call('PUT', '/api/v1/site-layout', { body: layout, agent: owner });
    expect(await saved.json()).toEqual({
      order: [b.id, a.id],
      pins: [b.id],
      groups: [{ name: 'Shops', sites: [a.id, b.id] }],
    });
    const v = await viewer();
    await h.call('PUT', `/api/v1/site-access/${v.id}`, { body: { sites: [a.id] }, agent: owner });
    expect(await (await h.call('GET', '/api/v1/site-layout', { agent: v.agent })).json()).toEqual({
      order: [a.id],
      pins: [],
      groups: [{ name: 'Shops', sites: [a.id] }],
    });
  });
});

describe('people over the API', () => {
  it('never removes or demotes the last owner, and changes roles otherwise', async () => {
    const me = h.control.raw.prepare(`SELECT id FROM people WHERE role = 'owner'`).get() as { id: string };
    expect(
      (await h.call('PATCH', `/api/v1/people/${me.id}`, { body: { role: 'viewer' }, agent: owner })).status,
    ).toBe(409);
    expect((await h.call('DELETE', `/api/v1/people/${me.id}`, { agent: owner })).status).toBe(409);
    const v = await viewer();
    const promoted = await h.call('PATCH', `/api/v1/people/${v.id}`, {
      body: { role: 'owner' },
      agent: owner,
    });
    expect(((await promoted.json()) as { person: { role: string } }).person.role).toBe('owner');
    expect((await h.call('DELETE', `/api/v1/people/${me.id}`, { agent: owner })).status).toBe(204);
    // the removed owner's session is gone with them
    expect((await h.call('GET', '/api/v1/sites', { agent: owner })).status).toBe(401);
  });

  it('refuses a second account for the same e-mail', async () => {
    await viewer('v@example.com');
    const again = await h.call('POST', '/api/v1/people', {
      body: { email: 'V@example.com', role: 'owner' },
      agent: owner,
    });
    expect(again.status).toBe(409);
  });
});
