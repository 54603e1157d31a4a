import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp, dumpControl } from './harness.ts';

let h: AccountsApp;
let owner: Agent;
beforeEach(async () => {
  h = await accountsApp({ env: { FOOTFALL_API_TOKEN: 'automation-token-0123456789' } });
  owner = await h.setup();
  await h.call('POST', '/api/v1/sites', { body: { domain: 'example.com' }, agent: owner });
});
afterEach(() => h.cleanup());

async function newKey(name = 'grafana'): Promise<{ id: string; key: string }> {
  const res = await h.call('POST', '/api/v1/api-keys', { body: { name }, agent: owner });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { api_key: { id: string }; key: string };
  return { id: body.api_key.id, key: body.key };
}

describe('API keys', () => {
  it('shows the value once: the list has its start and last use, never the value, and the database only a hash', async () => {
    const { key } = await newKey();
    const list = await h.call('GET', '/api/v1/api-keys', { agent: owner });
    const text = await list.text();
    expect(text).not.toContain(key);
    expect(JSON.parse(text)).toEqual({
      api_keys: [
        {
          id: expect.any(String),
          name: 'grafana',
          start: key.slice(0, 10),
          created_at: expect.any(String),
          last_used_at: null,
          sites: null,
        },
      ],
    });
    expect(dumpControl(h.control)).not.toContain(key.slice(10));
  });

  it('reads with the key and records when it was last used', async () => {
    const { key } = await newKey();
    h.clock.advance(5 * 60_000);
    const sites = await h.call('GET', '/api/v1/sites', { bearer: key });
    expect(sites.status).toBe(200);
    const listed = (await sites.json()) as { sites: Record<string, unknown>[] };
    expect(listed.sites.map((s) => s.domain)).toEqual(['example.com']);
    expect(listed.sites[0]).not.toHaveProperty('proxy_key');
    const keys = (await (await h.call('GET', '/api/v1/api-keys', { agent: owner })).json()) as {
      api_keys: { last_used_at: string }[];
    };
    expect(keys.api_keys[0]!.last_used_at).toBe(new Date(h.clock.now()).toISOString());
  });

  it('refuses a revoked key', async () => {
    const { id, key } = await newKey();
    expect((await h.call('DELETE', `/api/v1/api-keys/${id}`, { agent: owner })).status).toBe(204);
    const res = await h.call('GET', '/api/v1/sites', { bearer: key });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('is read-only: 403 on a write, and nothing changes', async () => {
    const { key } = await newKey();
    await h.call('GET', '/api/v1/sites', { bearer: key });
    const before = dumpControl(h.control);
    const res = await h.call('POST', '/api/v1/sites', { body: { domain: 'b.com' }, bearer: key });
    expect(res.status).toBe(403);
    expect(dumpControl(h.control)).toBe(before);
  });

  it('FOOTFALL_API_TOKEN reads every site and writes nothing', async () => {
    const token = 'automation-token-0123456789';
    expect((await h.call('GET', '/api/v1/sites', { bearer: token })).status).toBe(200);
    expect((await h.call('GET', '/api/v1/sites', { bearer: `${token}x` })).status).toBe(401);
    expect((await h.call('POST', '/api/v1/api-keys', { body: { name: 'x' }, bearer: token })).status).toBe(
      403,
    );
  });
});
