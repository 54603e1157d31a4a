import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';

/**
 * Share links through the API: owners make, change and revoke them; whoever holds one reads the
 * shared site's report with the credential it gives, and nothing else; a password guards it, and
 * 20 wrong passwords in ten minutes from anywhere delay the link.
 */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;
let other: string;

const json = async <T>(res: Response) => (await res.json()) as T;

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  const make = async (domain: string) =>
    (
      await json<{ site: { id: string } }>(
        await h.call('POST', '/api/v1/sites', { body: { domain }, agent: owner }),
      )
    ).site.id;
  site = await make('shared.example');
  other = await make('private.example');
  viewer = await h.addViewer(owner);
  await h.call('POST', `/api/v1/sites/${site}/annotations`, {
    body: { date: '2026-03-01', text: 'Launch' },
    agent: owner,
  });
});
afterAll(() => h.cleanup());

interface ShareJson {
  id: string;
  url: string;
  has_password: boolean;
  show_notes: boolean;
  label: string | null;
}
const tokenOf = (s: ShareJson) => s.url.slice(s.url.lastIndexOf('/') + 1);

async function makeShare(body: Record<string, unknown> = {}): Promise<ShareJson> {
  const res = await h.call('POST', `/api/v1/sites/${site}/shares`, { body, agent: owner });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ share: ShareJson }>(res)).share;
}

async function open(token: string, password?: string, address?: string) {
  return h.call('POST', `/api/v1/shared/${token}/session`, {
    body: password === undefined ? {} : { password },
    address,
  });
}

describe('share links', () => {
  it('are made, listed and changed by owners only', async () => {
    const share = await makeShare({ label: ' For the team ' });
    expect(share).toMatchObject({ label: 'For the team', has_password: false, show_notes: false });
    expect(share.url).toMatch(/\/share\/ffsh_[\w-]{32}$/);
    const list = await json<{ shares: ShareJson[] }>(
      await h.call('GET', `/api/v1/sites/${site}/shares`, { agent: owner }),
    );
    expect(list.shares.map((s) => s.id)).toContain(share.id);
    expect((await h.call('GET', `/api/v1/sites/${site}/shares`, { agent: viewer })).status).toBe(403);
    expect((await h.call('POST', `/api/v1/sites/${site}/shares`, { body: {}, agent: viewer })).status).toBe(
      403,
    );
    const bad = await h.call('POST', `/api/v1/sites/${site}/shares`, {
      body: { password: 'abc' },
      agent: owner,
    });
    expect(await bad.json()).toMatchObject({ code: 'invalid_body', field: 'password' });
    const patched = await h.call('PATCH', `/api/v1/sites/${site}/shares/${share.id}`, {
      body: { show_notes: true, label: null },
      agent: owner,
    });
    expect((await json<{ share: ShareJson }>(patched)).share).toMatchObject({
      show_notes: true,
      label: null,
    });
  });

  it("reads the shared site's report with the link's credential, and nothing else", async () => {
    const share = await makeShare();
    const shown = await json<{ password_required: boolean; site: { id: string; proxy_key?: string } }>(
      await h.call('GET', `/api/v1/shared/${tokenOf(share)}`),
    );
    expect(shown).toMatchObject({ password_required: false, site: { id: site } });
    expect(shown.site).not.toHaveProperty('proxy_key');
    const session = await json<{ credential: string; expires_at: string }>(await open(tokenOf(share)));
    expect(session.credential).toMatch(/^ffss_/);
    const bearer = session.credential;
    const read = (path: string) => h.call('GET', path, { bearer });
    for (const path of [
      `/api/v1/sites/${site}`,
      `/api/v1/sites/${site}/status`,
      `/api/v1/sites/${site}/report?from=2026-02-01&to=2026-03-01`,
      `/api/v1/sites/${site}/report/breakdown?dim=channel&from=2026-02-01&to=2026-03-01`,
      `/api/v1/sites/${site}/goals`,
    ])
      expect((await read(path)).status, path).toBe(200);
    // single visitors, the CSV, settings, other sites and the account are not shared
    for (const path of [
      `/api/v1/sites/${site}/now`,
      `/api/v1/sites/${site}/events`,
      `/api/v1/sites/${site}/export.csv?from=2026-02-01&to=2026-03-01`,
      `/api/v1/sites/${site}/shares`,
      '/api/v1/sites',
      '/api/v1/site-trends',
      '/api/v1/health',
    ])
      expect((await read(path)).status, path).toBe(403);
    expect((await read(`/api/v1/sites/${other}`)).status).toBe(404);
    expect(
      (await h.call('PATCH', `/api/v1/sites/${site}`, { bearer, body: { colour: '#000000' } })).status,
    ).toBe(403);
    // notes only when the link shows them, and never their authors
    expect((await read(`/api/v1/sites/${site}/annotations`)).status).toBe(403);
    await h.call('PATCH', `/api/v1/sites/${site}/shares/${share.id}`, {
      body: { show_notes: true },
      agent: owner,
    });
    const again = (await json<{ credential: string }>(await open(tokenOf(share)))).credential;
    const notes = await json<{ annotations: { text: string; author: unknown }[] }>(
      await h.call('GET', `/api/v1/sites/${site}/annotations`, { bearer: again }),
    );
    expect(notes.annotations).toEqual([expect.objectContaining({ text: 'Launch', author: null })]);
    // revoked: the address is gone and open pages lose access at once
    expect(
      (await h.call('DELETE', `/api/v1/sites/${site}/shares/${share.id}`, { agent: owner })).status,
    ).toBe(204);
    expect((await h.call('GET', `/api/v1/shared/${tokenOf(share)}`)).status).toBe(404);
    expect((await read(`/api/v1/sites/${site}/status`)).status).toBe(401);
  });

  it('asks for the password, and a new password ends the access given with the old one', async () => {
    const share = await makeShare({ password: 'open sesame' });
    const shown = await json<{ password_required: boolean; site: unknown }>(
      await h.call('GET', `/api/v1/shared/${tokenOf(share)}`),
    );
    expect(shown).toEqual({ password_required: true, site: null, show_notes: false });
    const wrong = await open(tokenOf(share), 'open barley');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'unauthorized', field: 'password' });
    expect((await open(tokenOf(share))).status).toBe(401);
    const right = await json<{ credential: string }>(await open(tokenOf(share), 'open sesame'));
    const status = `/api/v1/sites/${site}/status`;
    expect((await h.call('GET', status, { bearer: right.credential })).status).toBe(200);
    await h.call('PATCH', `/api/v1/sites/${site}/shares/${share.id}`, {
      body: { password: 'new secret' },
      agent: owner,
    });
    expect((await h.call('GET', status, { bearer: right.credential })).status).toBe(401);
    expect((await open(tokenOf(share), 'new secret')).status).toBe(200);
  });

  it('delays a link after 20 wrong passwords in ten minutes, from any address', {
    timeout: 60_000,
  }, async () => {
    const share = await makeShare({ password: 'correct pony' });
    for (let i = 0; i < 20; i++) {
      const r = await open(tokenOf(share), `guess ${i}`, `198.51.100.${i + 1}`);
      expect(r.status).toBe(401);
    }
    const held = await open(tokenOf(share), 'correct pony', '203.0.113.7');
    expect(held.status).toBe(429);
    const wait = Number(held.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(600);
    // another link of the same site is not held
    const second = await makeShare({ password: 'other pony' });
    expect((await open(tokenOf(second), 'other pony', '203.0.113.7')).status).toBe(200);
    h.clock.advance(10 * 60_000 + 1000);
    expect((await open(tokenOf(share), 'correct pony', '203.0.113.7')).status).toBe(200);
  });

  it('lets no more than 20 guesses through when they come all at once', async () => {
    const share = await makeShare({ password: 'parallel pony' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => open(tokenOf(share), `guess ${i}`, `198.51.100.${100 + i}`)),
    );
    const statuses = answers.map((r) => r.status);
    // 20 are taken, the rest refused at once; of the 20, those that waited more than five seconds
    // for a password-check slot (two at once, about 0.4 s each) are answered 503 busy, not checked
    const taken = statuses.filter((s) => s === 401 || s === 503);
    expect(taken).toHaveLength(20);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  }, 60_000);

  it('stops every link of a site while its shares module is off', async () => {
    const share = await makeShare();
    const credential = (await json<{ credential: string }>(await open(tokenOf(share)))).credential;
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { shares: false } }, agent: owner });
    expect((await h.call('GET', `/api/v1/shared/${tokenOf(share)}`)).status).toBe(404);
    expect((await h.call('GET', `/api/v1/sites/${site}/status`, { bearer: credential })).status).toBe(401);
    expect((await h.call('POST', `/api/v1/sites/${site}/shares`, { body: {}, agent: owner })).status).toBe(
      404,
    );
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { shares: true } }, agent: owner });
    expect((await h.call('GET', `/api/v1/sites/${site}/status`, { bearer: credential })).status).toBe(200);
  });
});
