import { storeFavicon } from '@footfall/control';
import { expect } from 'vitest';
import type { Agent } from '../accounts/harness.ts';
import type { DocumentedApp } from './documented-app.ts';

/**
 * What owners manage, called the way the dashboard would, each answer checked against the
 * document: people, API keys, sites, the site layout and viewers' site access.
 */

export async function peopleFlow(h: DocumentedApp, owner: Agent, ownerId: string) {
  const list = await h.call('GET', '/api/v1/people', { agent: owner });
  expect(list.status).toBe(200);
  const added = await h.call('POST', '/api/v1/people', {
    body: { email: 'bob@example.com', role: 'viewer' },
    agent: owner,
  });
  expect(added.status).toBe(201);
  expect(added.json()).toHaveProperty('password'); // generated, shown once
  const bob = added.json<{ person: { id: string } }>().person.id;
  const again = await h.call('POST', '/api/v1/people', {
    body: { email: 'BOB@example.com', role: 'owner' },
    agent: owner,
  });
  expect(again.status).toBe(409);
  const role = (id: string, r: string) =>
    h.call('PATCH', `/api/v1/people/${id}`, { body: { role: r }, agent: owner });
  expect((await role(bob, 'owner')).json()).toMatchObject({ person: { role: 'owner' } });
  expect((await role(bob, 'viewer')).status).toBe(200);
  expect((await role(ownerId, 'viewer')).status).toBe(409); // the last owner
  expect((await h.call('DELETE', `/api/v1/people/${ownerId}`, { agent: owner })).status).toBe(409);
  expect((await h.call('DELETE', `/api/v1/people/${bob}`, { agent: owner })).status).toBe(204);
}

export async function apiKeyFlow(h: DocumentedApp, owner: Agent) {
  const created = await h.call('POST', '/api/v1/api-keys', { body: { name: 'reporting' }, agent: owner });
  expect(created.status).toBe(201);
  const { api_key, key } = created.json<{ api_key: { id: string }; key: string }>();
  expect((await h.call('GET', '/api/v1/sites', { bearer: key })).status).toBe(200);
  const list = await h.call('GET', '/api/v1/api-keys', { agent: owner });
  const listed = list.json<{ api_keys: { id: string; last_used_at: string | null }[] }>().api_keys;
  expect(listed.find((k) => k.id === api_key.id)?.last_used_at).not.toBeNull();
  expect((await h.call('DELETE', `/api/v1/api-keys/${api_key.id}`, { agent: owner })).status).toBe(204);
  expect((await h.call('GET', '/api/v1/sites', { bearer: key })).status).toBe(401);
}

/** A custom payment connection: created (secret once), listed without it, renamed, rotated, deleted. */
export async function paymentConnectionFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = `/api/v1/sites/${site}/payments/connections`;
  const created = await h.call('POST', base, {
    body: { provider: 'custom', environment: 'sandbox' },
    agent: owner,
  });
  expect(created.status).toBe(201);
  const made = created.json<{ id: string; signing_secret: string; webhook_url: string; mode: string }>();
  expect(made).toMatchObject({
    mode: 'manual',
    environment: 'sandbox',
    webhook_url: expect.stringMatching(`/webhooks/custom/${made.id}$`),
  });
  const list = await h.call('GET', base, { agent: owner });
  expect(list.status).toBe(200);
  expect(list.text).not.toContain(made.signing_secret);
  // the owner reads the secret back on purpose; a custom connection cannot be reconciled
  const secret = await h.call('GET', `${base}/${made.id}/secret`, { agent: owner });
  expect(secret.json()).toEqual({ signing_secret: made.signing_secret });
  expect((await h.call('POST', `${base}/${made.id}/sync`, { body: {}, agent: owner })).status).toBe(409);
  // a provider set up by hand: the URL first, its signing secret pasted later
  const manual = await h.call('POST', base, { body: { provider: 'stripe', mode: 'manual' }, agent: owner });
  expect(manual.status).toBe(201);
  const hand = manual.json<{ id: string; has_signing_secret: boolean; webhook_url: string }>();
  expect(hand).toMatchObject({
    has_signing_secret: false,
    webhook_url: expect.stringMatching(`/webhooks/stripe/${hand.id}$`),
  });
  const pasted = await h.call('PATCH', `${base}/${hand.id}`, {
    body: { signing_secret: 'whsec_test' },
    agent: owner,
  });
  expect(pasted.json()).toMatchObject({ has_signing_secret: true });
  // an automatic set-up needs a key; a manual one refuses one
  const keyless = await h.call('POST', base, {
    body: { provider: 'stripe', mode: 'automatic' },
    agent: owner,
  });
  expect(keyless.json()).toMatchObject({ code: 'invalid_body', field: 'api_key' });
  expect((await h.call('DELETE', `${base}/${hand.id}`, { agent: owner })).status).toBe(204);
  const renamed = await h.call('PATCH', `${base}/${made.id}`, {
    body: { name: 'Checkout server' },
    agent: owner,
  });
  expect(renamed.json()).toMatchObject({ name: 'Checkout server' });
  expect((await h.call('PATCH', `${base}/${made.id}`, { body: { name: '' }, agent: owner })).status).toBe(
    400,
  );
  // with a connection, the report carries revenue (here none yet) and the CSV its columns
  const report = await h.call('GET', `/api/v1/sites/${site}/report?attr=first&payments=test`, {
    agent: owner,
  });
  expect(report.json()).toMatchObject({
    revenue: { attribution: 'first', payments: 'test', unpriced_currencies: [] },
    kpis: { revenue: 0, customers: 0 },
  });
  expect((await h.call('GET', `/api/v1/sites/${site}/report?attr=middle`, { agent: owner })).status).toBe(
    400,
  );
  const csv = await h.call('GET', `/api/v1/sites/${site}/export.csv`, { agent: owner });
  expect(csv.text.split('\r\n')[0]).toMatch(/,revenue,currency,customers,scroll_depth,time_on_page$/);
  const rotated = await h.call('POST', `${base}/${made.id}/secret`, { agent: owner });
  expect(rotated.json<{ signing_secret: string }>().signing_secret).not.toBe(made.signing_secret);
  expect((await h.call('DELETE', `${base}/${made.id}`, { agent: owner })).status).toBe(204);
  expect((await h.call('DELETE', `${base}/${made.id}`, { agent: owner })).status).toBe(404);
  const find = await h.call('POST', '/api/v1/data-requests/find', {
    body: { email: 'payer@example.com' },
    agent: owner,
  });
  expect(find.json()).toEqual({
    payloads: 0,
    sites: [],
    payments: 0,
    message: 'Nothing stored names this e-mail address: there is nothing to erase.',
  });
  const erase = (email: string) =>
    h.call('POST', '/api/v1/data-requests/erase', { body: { email }, agent: owner });
  expect((await erase('payer@example.com')).json()).toEqual({
    payloads: 0,
    sites: [],
    unattributed_payments: 0,
    message: 'Nothing stored names this e-mail address: nothing was erased.',
  });
  expect((await erase('not an address')).status).toBe(400);
}

export async function siteFlow(h: DocumentedApp, owner: Agent, viewer: Agent, apiToken: string) {
  const body = {
    domain: 'https://Shop.Example.net/pricing',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    cookieless: true,
    city_recording: true,
    icon: '🛒',
    colour: '#3366FF',
    consent_bar: true,
    consent_text: 'May we count your visit?',
    consent_background: '#FEF3C7',
  };
  const created = await h.call('POST', '/api/v1/sites', { body, agent: owner });
  expect(created.status).toBe(201);
  const site = created.json<{ site: { id: string; proxy_key: string } }>().site;
  expect(site).toMatchObject({
    domain: 'shop.example.net',
    colour: '#3366ff',
    consent_background: '#fef3c7',
  });
  expect((await h.call('POST', '/api/v1/sites', { body, agent: owner })).status).toBe(409);

  const asViewer = await h.call('GET', `/api/v1/sites/${site.id}`, { agent: viewer });
  expect(asViewer.json<{ site: object }>().site).not.toHaveProperty('proxy_key');
  expect((await h.call('GET', `/api/v1/sites/${site.id}`, { agent: owner })).json()).toHaveProperty(
    'site.proxy_key',
  );
  expect((await h.call('GET', '/api/v1/sites', { bearer: apiToken })).status).toBe(200);
  expect((await h.call('GET', '/api/v1/sites', { agent: owner })).status).toBe(200);

  const patch = (b: unknown) => h.call('PATCH', `/api/v1/sites/${site.id}`, { body: b, agent: owner });
  expect((await patch({ icon: null, colour: null, cookieless: false })).status).toBe(200);
  expect((await patch({ timezone: 'Mars/Olympus_Mons' })).json()).toMatchObject({ field: 'timezone' });
  expect((await patch({ consent_text: null, consent_foreground: '#111827' })).status).toBe(200);
  expect((await patch({ consent_foreground: '#feefc7' })).json()).toMatchObject({
    field: 'consent_foreground',
  });
  expect((await patch({ domain: 'example.com' })).status).toBe(409);
  // shields: owners' lists, a bad entry named, the counts of what they kept out
  const shielded = await patch({ shields: { ips: ['10.0.0.0/8'], pages: ['/admin/*'] } });
  expect(shielded.json()).toMatchObject({
    site: { shields: { ips: ['10.0.0.0/8'], countries: [], pages: ['/admin/*'], hostnames: [] } },
  });
  expect((await patch({ shields: { ips: ['10.0.0.0/33'] } })).json()).toMatchObject({
    field: 'shields.ips[0]',
  });
  expect((await patch({ shields: { countries: 'DE' } })).status).toBe(400);
  const shields = await h.call('GET', `/api/v1/sites/${site.id}/shields`, { agent: owner });
  expect(shields.json()).toMatchObject({
    shields: { ips: ['10.0.0.0/8'] },
    excluded: { today: { total: 0 }, last_30_days: { total: 0 } },
  });
  expect((await h.call('GET', `/api/v1/sites/${site.id}/shields`, { agent: viewer })).status).toBe(403);
  expect((await h.call('GET', `/api/v1/sites/${site.id}`, { agent: viewer })).json()).not.toHaveProperty(
    'site.shields',
  );
  // a favicon is stored by the weekly fetch (alerts/install-check.ts); before it, 404
  expect((await h.call('GET', `/api/v1/sites/${site.id}/favicon`, { agent: viewer })).status).toBe(404);
  const gif = Buffer.from('R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==', 'base64');
  storeFavicon(h.control, site.id, { contentType: 'image/gif', bytes: gif });
  const favicon = await h.call('GET', `/api/v1/sites/${site.id}/favicon`, { agent: viewer });
  expect(favicon.status).toBe(200);
  expect(favicon.headers.get('content-type')).toBe('image/gif');
  const rotated = await h.call('POST', `/api/v1/sites/${site.id}/proxy-key`, { agent: owner });
  expect(rotated.json<{ site: { proxy_key: string } }>().site.proxy_key).not.toBe(site.proxy_key);
  expect((await h.call('DELETE', `/api/v1/sites/${site.id}`, { agent: owner })).status).toBe(204);
  expect(h.deleted).toContain(site.id);
}

export async function layoutAndAccessFlow(
  h: DocumentedApp,
  owner: Agent,
  viewer: Agent,
  ids: { site: string; viewer: string; owner: string },
) {
  const layout = {
    order: [ids.site, 'gone-site'],
    pins: [ids.site],
    groups: [{ name: ' Shops ', sites: [ids.site] }],
  };
  const saved = await h.call('PUT', '/api/v1/site-layout', { body: layout, agent: owner });
  expect(saved.json()).toEqual({
    order: [ids.site],
    pins: [ids.site],
    groups: [{ name: 'Shops', sites: [ids.site] }],
  });
  expect((await h.call('GET', '/api/v1/site-layout', { agent: viewer })).json()).toEqual(saved.json());

  const access = (id: string, sites: unknown) =>
    h.call('PUT', `/api/v1/site-access/${id}`, { body: { sites }, agent: owner });
  expect((await access(ids.viewer, [ids.site])).json()).toMatchObject({ sites: [ids.site] });
  expect((await access(ids.viewer, ['nosuchsite'])).json()).toMatchObject({ field: 'sites' });
  expect((await access(ids.owner, [ids.site])).status).toBe(409);
  const list = await h.call('GET', '/api/v1/site-access', { agent: owner });
  const viewers = list.json<{ viewers: { person_id: string; sites: unknown }[] }>().viewers;
  expect(viewers.find((v) => v.person_id === ids.viewer)?.sites).toEqual([ids.site]);
  expect((await access(ids.viewer, 'all')).json()).toMatchObject({ sites: 'all' });
}

/** The operator endpoints with the token set (`h`) and unset (`plain`). */
export async function operatorFlow(h: DocumentedApp, plain: DocumentedApp, token: string) {
  for (const path of ['/_footfall/health', '/_footfall/usage']) {
    expect((await h.call('GET', path, { bearer: token })).status).toBe(200);
    expect((await h.call('GET', path, { bearer: 'not-the-operator-token' })).status).toBe(401);
    expect((await plain.call('GET', path, { bearer: token })).status).toBe(404);
  }
}
