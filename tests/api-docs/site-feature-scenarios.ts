import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createShare, createSite, recordMilestone } from '@footfall/control';
import { expect } from 'vitest';
import { Alerts } from '../../apps/query/src/alerts/alerts.ts';
import type { Agent } from '../accounts/harness.ts';
import type { FakeGoogle } from '../support/google.ts';
import { plausibleExportFiles, plausibleExportZip } from '../support/plausible-export.ts';
import type { DocumentedApp } from './documented-app.ts';

/**
 * What owners add to a site, called the way the dashboard would, each answer checked against the
 * document: notes, goals, funnels, alert destinations, share links (and what a link's holder
 * calls), milestones (cards and public pages) and the Search Console connection.
 */

/** Fills a site's list up to its limit through the API, then shows the documented 409. */
async function upToTheLimit(h: DocumentedApp, owner: Agent, path: string, body: (i: number) => unknown) {
  for (let i = 0; ; i++) {
    const res = await h.call('POST', path, { body: body(i), agent: owner });
    if (res.status === 409) return i;
    expect(res.status, res.text).toBe(201);
    expect(i).toBeLessThan(100);
  }
}

/** Deletes every item of a list answered as `{ [key]: [{ id }] }`. */
async function deleteAll(h: DocumentedApp, owner: Agent, path: string, key: string) {
  const list =
    (await h.call('GET', path, { agent: owner })).json<Record<string, { id: string }[]>>()[key] ?? [];
  for (const { id } of list)
    expect((await h.call('DELETE', `${path}/${id}`, { agent: owner })).status).toBe(204);
}

export async function notesFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = `/api/v1/sites/${site}/annotations`;
  expect((await h.call('GET', `${base}?from=2026-01-01&to=2026-12-31`, { agent: owner })).status).toBe(200);
  expect((await h.call('GET', `${base}?since=2026-01-01`, { agent: owner })).status).toBe(400);
  const made = await h.call('POST', base, { body: { date: '2026-03-01', text: 'Launch' }, agent: owner });
  expect(made.status).toBe(201);
  const id = made.json<{ annotation: { id: string } }>().annotation.id;
  const edited = await h.call('PATCH', `${base}/${id}`, {
    body: { text: 'Launch day', end_date: '2026-03-02' },
    agent: owner,
  });
  expect(edited.status).toBe(200);
  // a site keeps 5,000 notes: the rest are written straight into the table
  const insert = h.control.raw.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)
     INSERT INTO annotations (id, site_id, day, end_day, text, author_id, created_at, updated_at)
     SELECT 'filler' || i, ?, '2026-01-01', NULL, 'filler', NULL, 0, 0 FROM n`,
  );
  insert.run(site);
  const full = await h.call('POST', base, {
    body: { date: '2026-03-03', text: 'one too many' },
    agent: owner,
  });
  expect(full.status).toBe(409);
  h.control.raw.prepare("DELETE FROM annotations WHERE id LIKE 'filler%'").run();
  expect((await h.call('DELETE', `${base}/${id}`, { agent: owner })).status).toBe(204);
}

/** Saved segments: a viewer's own, an owner's shared one, who may change which, the limit. */
export async function segmentsFlow(h: DocumentedApp, owner: Agent, viewer: Agent, site: string) {
  const base = `/api/v1/sites/${site}/segments`;
  const shared = await h.call('POST', base, {
    body: { name: 'Paid traffic from Germany', filters: ['country:DE', 'channel:Paid Search'], shared: true },
    agent: owner,
  });
  expect(shared.status).toBe(201);
  const sharedId = shared.json<{ segment: { id: string } }>().segment.id;
  const own = await h.call('POST', base, {
    body: { name: 'Mobile', filters: ['device:mobile'] },
    agent: viewer,
  });
  expect(own.json()).toMatchObject({ segment: { shared: false, author: { email: 'viewer@example.com' } } });
  const ownId = own.json<{ segment: { id: string } }>().segment.id;
  expect(
    (await h.call('POST', base, { body: { name: 'x', filters: ['x:1'] }, agent: viewer })).json(),
  ).toMatchObject({
    field: 'filters',
  });
  expect(
    (await h.call('POST', base, { body: { name: 'x', filters: ['page:/'], shared: true }, agent: viewer }))
      .status,
  ).toBe(403);
  // each sees the shared one and their own; an owner does not see a viewer's private one
  const names = async (agent: Agent) =>
    (await h.call('GET', base, { agent }))
      .json<{ segments: { name: string }[] }>()
      .segments.map((x) => x.name);
  expect(await names(viewer)).toEqual(['Mobile', 'Paid traffic from Germany']);
  expect(await names(owner)).toEqual(['Paid traffic from Germany']);
  expect(
    (await h.call('PATCH', `${base}/${ownId}`, { body: { name: 'Phones' }, agent: viewer })).status,
  ).toBe(200);
  expect((await h.call('PATCH', `${base}/${ownId}`, { body: { name: 'Mine' }, agent: owner })).status).toBe(
    404,
  );
  expect(
    (await h.call('PATCH', `${base}/${sharedId}`, { body: { name: 'Mine' }, agent: viewer })).status,
  ).toBe(403);
  expect((await h.call('PATCH', `${base}/${sharedId}`, { body: { filters: [] }, agent: owner })).status).toBe(
    400,
  );
  // a site keeps 500 segments: the rest are written straight into the table
  h.control.raw
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 498)
       INSERT INTO segments (id, site_id, person_id, name, filters, shared, created_at, updated_at)
       SELECT 'filler' || i, ?, NULL, 'filler', '["page:/"]', 1, 0, 0 FROM n`,
    )
    .run(site);
  expect(
    (await h.call('POST', base, { body: { name: 'one too many', filters: ['page:/'] }, agent: owner }))
      .status,
  ).toBe(409);
  h.control.raw.prepare("DELETE FROM segments WHERE id LIKE 'filler%'").run();
  expect((await h.call('DELETE', `${base}/${ownId}`, { agent: viewer })).status).toBe(204);
  expect((await h.call('DELETE', `${base}/${sharedId}`, { agent: owner })).status).toBe(204);
}

export async function goalsAndFunnelsFlow(h: DocumentedApp, owner: Agent, site: string) {
  const goals = `/api/v1/sites/${site}/goals`;
  expect((await h.call('GET', goals, { agent: owner })).status).toBe(200);
  const made = await h.call('POST', goals, {
    body: { name: 'Signed up', kind: 'event', match: 'Signup' },
    agent: owner,
  });
  expect(made.status).toBe(201);
  const goal = made.json<{ goal: { id: string } }>().goal.id;
  expect(
    (await h.call('PATCH', `${goals}/${goal}`, { body: { name: 'Signed up!' }, agent: owner })).status,
  ).toBe(200);
  expect(
    await upToTheLimit(h, owner, goals, (i) => ({ name: `Page ${i}`, kind: 'page', match: `/p${i}` })),
  ).toBe(49);
  await deleteAll(h, owner, goals, 'goals');

  const funnels = `/api/v1/sites/${site}/funnels`;
  expect((await h.call('GET', funnels, { agent: owner })).status).toBe(200);
  const steps = [
    { kind: 'page', match: '/' },
    { kind: 'page', match: '/pricing' },
  ];
  const funnel = await h.call('POST', funnels, { body: { name: 'Pricing', steps }, agent: owner });
  expect(funnel.status).toBe(201);
  const id = funnel.json<{ funnel: { id: string } }>().funnel.id;
  expect((await h.call('PATCH', `${funnels}/${id}`, { body: { within_days: 7 }, agent: owner })).status).toBe(
    200,
  );
  expect(await upToTheLimit(h, owner, funnels, (i) => ({ name: `Funnel ${i}`, steps }))).toBe(9);
  await deleteAll(h, owner, funnels, 'funnels');
}

/** A local server that takes alert webhooks (allowed by FOOTFALL_UNSAFE_OUTBOUND_ALLOW). */
export async function webhookReceiver(): Promise<{ url: string; hostPort: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, hostPort: `127.0.0.1:${port}`, server };
}

export async function alertsFlow(h: DocumentedApp, owner: Agent, site: string, hookUrl: string) {
  // the alert service as the query service runs it, not started: only its test delivery is used
  h.deps.alerts = new Alerts(h.deps);
  const base = `/api/v1/sites/${site}/alerts`;
  expect((await h.call('GET', base, { agent: owner })).status).toBe(200);
  const made = await h.call('POST', base, { body: { channel: 'webhook', url: hookUrl }, agent: owner });
  expect(made.status, made.text).toBe(201);
  const id = made.json<{ destination: { id: string } }>().destination.id;
  // the same URL twice on one site
  const twice = await h.call('POST', base, { body: { channel: 'webhook', url: hookUrl }, agent: owner });
  expect(twice.status).toBe(409);
  expect(
    (await h.call('PATCH', `${base}/${id}`, { body: { kinds: ['busy_day'] }, agent: owner })).status,
  ).toBe(200);
  const tested = await h.call('POST', `${base}/${id}/test`, { agent: owner });
  expect(tested.json()).toMatchObject({ delivered: true, error: null });
  expect((await h.call('DELETE', `${base}/${id}`, { agent: owner })).status).toBe(204);
}

export async function sharesFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = `/api/v1/sites/${site}/shares`;
  const made = await h.call('POST', base, {
    body: { label: 'Board', password: 'a long share password' },
    agent: owner,
  });
  expect(made.status).toBe(201);
  const share = made.json<{ share: { id: string; url: string } }>().share;
  const token = share.url.slice(share.url.lastIndexOf('/') + 1);
  expect((await h.call('GET', base, { agent: owner })).status).toBe(200);
  expect(
    (await h.call('PATCH', `${base}/${share.id}`, { body: { show_notes: true }, agent: owner })).status,
  ).toBe(200);
  // what the link's holder calls, from their own address
  const holder = { address: '203.0.113.40' };
  expect((await h.call('GET', `/api/v1/shared/${token}`, holder)).json()).toMatchObject({
    password_required: true,
  });
  const open = (password: string) =>
    h.call('POST', `/api/v1/shared/${token}/session`, { ...holder, body: { password } });
  expect((await open('a long share password')).status).toBe(200);
  expect((await open('not it')).status).toBe(401);
  let status = 401;
  for (let i = 0; i < 30 && status === 401; i++) status = (await open(`guess ${i}`)).status;
  expect(status).toBe(429);
  expect((await h.call('POST', '/api/v1/shared/shr_unknown/session', { ...holder, body: {} })).status).toBe(
    404,
  );
  expect(await upToTheLimit(h, owner, base, () => ({}))).toBe(19);
  await deleteAll(h, owner, base, 'shares');
  expect((await h.call('GET', `/api/v1/shared/${token}`, holder)).status).toBe(404);
}

/** 503 busy on a share link's password when no password check may run (`busy` app). */
export async function shareBusy(app: DocumentedApp) {
  const site = await createSite(app.control, { domain: 'busy.example', timezone: 'UTC', currency: 'EUR' });
  const share = await createShare(app.control, site.id, { password: 'a long share password' });
  const res = await app.call('POST', `/api/v1/shared/${share.token}/session`, {
    body: { password: 'a long share password' },
  });
  expect(res.status).toBe(503);
}

export async function milestonesFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = `/api/v1/sites/${site}/milestones`;
  expect((await h.call('GET', base, { agent: owner })).status).toBe(200);
  const kinds = ['visitors', 'pageviews', 'countries', 'record_day'];
  expect((await h.call('PUT', base, { body: { kinds }, agent: owner })).status).toBe(200);
  // what the daily check stores (apps/query/src/milestones/check.ts)
  recordMilestone(h.control, { siteId: site, kind: 'visitors', step: '100', value: 104, day: '2026-02-27' });
  expect(
    (await h.call('POST', `${base}/seen`, { body: { kind: 'visitors', step: '100' }, agent: owner })).status,
  ).toBe(204);
  const card = `${base}/visitors/100/card`;
  expect((await h.call('GET', `${card}?theme=dark`, { agent: owner })).status).toBe(200);
  expect((await h.call('GET', `${card}?theme=sepia`, { agent: owner })).status).toBe(400);
  const shared = await h.call('POST', `${base}/visitors/100/share`, { body: {}, agent: owner });
  expect(shared.status).toBe(201);
  const again = await h.call('POST', `${base}/visitors/100/share`, { body: {}, agent: owner });
  expect(again.status).toBe(200);
  const url = shared.json<{ share: { url: string } }>().share.url;
  const page = url.slice(url.indexOf('/m/'));
  expect((await h.call('GET', page, { headers: { accept: 'text/html' } })).status).toBe(200);
  expect((await h.call('GET', `${page}/card.png`)).status).toBe(200);
  expect((await h.call('DELETE', `${base}/visitors/100/share`, { agent: owner })).status).toBe(204);
  expect((await h.call('GET', page)).status).toBe(404);
  expect((await h.call('GET', `${page}/card.png`)).status).toBe(404);
}

export async function searchConsoleFlow(h: DocumentedApp, owner: Agent, site: string, google: FakeGoogle) {
  const base = `/api/v1/sites/${site}/search-console`;
  expect((await h.call('GET', base, { agent: owner })).status).toBe(200);
  const body = { property: 'sc-domain:example.com', service_account_key: google.keyFile };
  expect((await h.call('PUT', base, { body, agent: owner })).status).toBe(200);
  expect((await h.call('DELETE', base, { agent: owner })).status).toBe(204);
  // Google cannot be reached
  await google.close();
  expect((await h.call('PUT', base, { body, agent: owner })).status).toBe(502);
}

/** Imports: a Plausible export uploaded, a report over its days, a broken one refused, the list, a delete. */
export async function importsFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = `/api/v1/sites/${site}/imports`;
  const files = plausibleExportFiles([
    { date: '2019-05-01', visitors: 10, visits: 12 },
    { date: '2019-05-02', visitors: 20, visits: 21 },
  ]);
  const upload = (body: Uint8Array) =>
    h.call('POST', `${base}?source=plausible&name=plausible.zip`, {
      raw: { text: body, type: 'application/zip' },
      agent: owner,
    });
  const made = await upload(plausibleExportZip(files));
  expect(made.status).toBe(201);
  const id = made.json<{ import: { id: string } }>().import.id;
  const report = await h.call('GET', `/api/v1/sites/${site}/report?from=2019-05-01&to=2019-05-31`, {
    agent: owner,
  });
  expect(report.json()).toMatchObject({ imported: { source: 'plausible' }, kpis: { visits: 33 } });
  const breakdown = await h.call(
    'GET',
    `/api/v1/sites/${site}/report/breakdown?dim=channel&from=2019-05-01&to=2019-05-31`,
    {
      agent: owner,
    },
  );
  expect(breakdown.json()).toMatchObject({ imported: { from: '2019-05-01', to: '2019-05-02' } });
  expect((await upload(plausibleExportZip(files).slice(0, 100))).status).toBe(422);
  const plain = await h.call('POST', `${base}?source=plausible`, {
    raw: { text: 'x', type: 'text/plain' },
    agent: owner,
  });
  expect(plain.status).toBe(415);
  expect(
    (await h.call('POST', `${base}?source=ga`, { raw: { text: 'x', type: 'application/zip' }, agent: owner }))
      .status,
  ).toBe(400);
  expect((await h.call('GET', base, { agent: owner })).json<{ imports: unknown[] }>().imports).toHaveLength(
    1,
  );
  expect((await h.call('DELETE', `${base}/nope`, { agent: owner })).status).toBe(404);
  expect((await h.call('DELETE', `${base}/${id}`, { agent: owner })).status).toBe(204);
}
