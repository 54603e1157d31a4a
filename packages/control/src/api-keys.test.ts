import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, listApiKeys, resolveApiKey, revokeApiKey } from './api-keys.ts';
import { createSite, deleteSite } from './sites.ts';
import { tempControlDb, testClock } from './test-support.ts';

const clock = testClock();
let env: ReturnType<typeof tempControlDb>;
beforeEach(() => {
  env = tempControlDb({ clock });
});
afterEach(() => env.cleanup());

describe('API keys', () => {
  it('shows the value once and stores only its hash', async () => {
    const created = await createApiKey(env.ctl, { name: 'grafana', createdBy: null });
    expect(created.key).toMatch(/^ffk_[\w-]{32}$/);
    const dump = JSON.stringify(env.ctl.raw.prepare('SELECT * FROM api_keys').all());
    expect(dump).not.toContain(created.key);
    expect(dump).not.toContain(created.key.slice(12));
    const listed = await listApiKeys(env.ctl);
    expect(listed).toEqual([
      {
        id: created.id,
        name: 'grafana',
        start: created.key.slice(0, 10),
        createdAt: clock.now(),
        lastUsedAt: null,
        sites: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('records when a key was last used, at most once a minute', async () => {
    const { key } = await createApiKey(env.ctl, { name: 'x', createdBy: null });
    const t0 = clock.now();
    expect(await resolveApiKey(env.ctl, key)).toBeDefined();
    clock.advance(10_000);
    await resolveApiKey(env.ctl, key);
    expect((await listApiKeys(env.ctl))[0]!.lastUsedAt).toBe(t0);
    clock.advance(60_000);
    await resolveApiKey(env.ctl, key);
    expect((await listApiKeys(env.ctl))[0]!.lastUsedAt).toBe(t0 + 70_000);
  });

  it('refuses a revoked key and an unknown one', async () => {
    const { id, key } = await createApiKey(env.ctl, { name: 'x', createdBy: null });
    expect(await revokeApiKey(env.ctl, id)).toBe(true);
    expect(await resolveApiKey(env.ctl, key)).toBeUndefined();
    expect(await resolveApiKey(env.ctl, `${key.slice(0, -1)}A`)).toBeUndefined();
    expect(await revokeApiKey(env.ctl, id)).toBe(false);
  });

  it('limits a key to chosen sites; a deleted site leaves its list', async () => {
    const shop = await createSite(env.ctl, { domain: 'shop.example' });
    const blog = await createSite(env.ctl, { domain: 'blog.example' });
    const all = await createApiKey(env.ctl, { name: 'all', createdBy: null });
    const limited = await createApiKey(env.ctl, { name: 'shop', createdBy: null, sites: [shop.id, shop.id] });
    expect(limited.sites).toEqual([shop.id]);
    expect((await resolveApiKey(env.ctl, all.key))?.scope).toBe('all');
    expect((await resolveApiKey(env.ctl, limited.key))?.scope).toEqual(new Set([shop.id]));
    await expect(createApiKey(env.ctl, { name: 'x', createdBy: null, sites: [] })).rejects.toMatchObject({
      code: 'invalid_body',
      field: 'sites',
    });
    await expect(
      createApiKey(env.ctl, { name: 'x', createdBy: null, sites: [blog.id, 'nosuchsite'] }),
    ).rejects.toThrow('no site nosuchsite');
    expect((await listApiKeys(env.ctl)).map((k) => k.name)).toEqual(['all', 'shop']);
    await deleteSite(env.ctl, shop.id, () => {});
    expect((await listApiKeys(env.ctl)).find((k) => k.name === 'shop')?.sites).toEqual([]);
    expect((await resolveApiKey(env.ctl, limited.key))?.scope).toEqual(new Set());
  });
});
