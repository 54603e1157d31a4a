import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeRole, createPerson, removePerson } from './people.ts';
import { setSiteAccess, siteScopeOf } from './site-access.ts';
import {
  createSite,
  deleteSite,
  ensureSites,
  finishSiteDeletions,
  getSite,
  listSites,
  rotateProxyKey,
  updateSite,
} from './sites.ts';
import { tempControlDb } from './test-support.ts';

let env: ReturnType<typeof tempControlDb>;
beforeEach(() => {
  env = tempControlDb();
});
afterEach(() => env.cleanup());

describe('sites', () => {
  it('reduces a pasted URL to a bare domain and fills defaults', async () => {
    const site = await createSite(env.ctl, { domain: 'https://www.Example.com/pricing?x=1' });
    expect(site).toMatchObject({
      domain: 'example.com',
      timezone: 'UTC',
      currency: 'USD',
      cookieless: false,
    });
    expect(site.id).toMatch(/^[a-z2-9]{10}$/);
    expect(getSite(env.ctl, site.id)).toEqual(site);
  });

  it('refuses an unknown time zone, a currency outside ISO 4217 and a second site for a domain', async () => {
    await expect(createSite(env.ctl, { domain: 'a.com', timezone: 'Mars/Base' })).rejects.toMatchObject({
      field: 'timezone',
    });
    await expect(createSite(env.ctl, { domain: 'a.com', currency: 'XYZW' })).rejects.toMatchObject({
      field: 'currency',
    });
    await createSite(env.ctl, { domain: 'a.com', timezone: 'europe/berlin', currency: 'eur' });
    expect(listSites(env.ctl)[0]).toMatchObject({ timezone: 'Europe/Berlin', currency: 'EUR' });
    await expect(createSite(env.ctl, { domain: 'A.com' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('makes www.example.com and example.com one site, whichever form is given', async () => {
    const site = await createSite(env.ctl, { domain: 'www.example.com' });
    expect(site.domain).toBe('example.com');
    await expect(createSite(env.ctl, { domain: 'example.com' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(createSite(env.ctl, { domain: 'https://WWW.example.com./' })).rejects.toMatchObject({
      code: 'conflict',
    });
    // only the leading www. of a longer name goes: www.com is a domain of its own
    expect((await createSite(env.ctl, { domain: 'www.com' })).domain).toBe('www.com');
    expect((await createSite(env.ctl, { domain: 'shop.www.example.net' })).domain).toBe(
      'shop.www.example.net',
    );
    expect(await ensureSites(env.ctl, ['example.com', 'www.example.com'])).toEqual([]);
  });

  it('keeps the time zone name the owner chose, checked as an IANA zone', async () => {
    for (const zone of ['Europe/Kyiv', 'Asia/Kolkata', 'Asia/Ho_Chi_Minh', 'Europe/Kiev', 'Etc/GMT+5']) {
      const site = await createSite(env.ctl, {
        domain: `${zone.replace(/[^a-z0-9]/gi, '').toLowerCase()}.com`,
        timezone: zone,
      });
      expect(site.timezone).toBe(zone);
      expect(getSite(env.ctl, site.id)?.timezone).toBe(zone);
    }
    expect((await createSite(env.ctl, { domain: 'case.com', timezone: ' america/new_york ' })).timezone).toBe(
      'America/New_York',
    );
    for (const zone of ['+02:00', 'Mars/Base', 'Europe/', '../etc/passwd', '']) {
      await expect(createSite(env.ctl, { domain: 'bad.com', timezone: zone })).rejects.toMatchObject({
        field: 'timezone',
      });
    }
  });

  it('rotates the proxy key and updates fields', async () => {
    const site = await createSite(env.ctl, { domain: 'a.com' });
    const rotated = await rotateProxyKey(env.ctl, site.id);
    expect(rotated.proxyKey).not.toBe(site.proxyKey);
    const updated = await updateSite(env.ctl, site.id, { cookieless: true, colour: '#ff0000' });
    expect(updated).toMatchObject({ cookieless: true, colour: '#ff0000', proxyKey: rotated.proxyKey });
  });

  it('creates the FOOTFALL_SITES domains once', async () => {
    expect(await ensureSites(env.ctl, ['a.com', 'b.com'])).toHaveLength(2);
    expect(await ensureSites(env.ctl, ['a.com', 'b.com', 'c.com'])).toHaveLength(1);
    expect(listSites(env.ctl).map((s) => s.domain)).toEqual(['a.com', 'b.com', 'c.com']);
  });

  it('deletes a site with its analytics, and retries the analytics at the next start after a failure', async () => {
    const a = await createSite(env.ctl, { domain: 'a.com' });
    const removed: string[] = [];
    await expect(
      deleteSite(env.ctl, a.id, () => {
        throw new Error('engine busy');
      }),
    ).rejects.toThrow('engine busy');
    expect(getSite(env.ctl, a.id)).toBeUndefined();
    expect(await finishSiteDeletions(env.ctl, (id) => void removed.push(id))).toEqual([a.id]);
    expect(removed).toEqual([a.id]);
    expect(await finishSiteDeletions(env.ctl, (id) => void removed.push(id))).toEqual([]);
  });
});

describe('people and site access', () => {
  it('never removes or demotes the last owner', async () => {
    const owner = await createPerson(env.ctl, {
      email: 'o@example.com',
      password: 'pw-0123456789',
      role: 'owner',
    });
    await expect(changeRole(env.ctl, owner.id, 'viewer')).rejects.toMatchObject({ code: 'conflict' });
    await expect(removePerson(env.ctl, owner.id)).rejects.toMatchObject({ code: 'conflict' });
    const second = await createPerson(env.ctl, {
      email: 'p@example.com',
      password: 'pw-0123456789',
      role: 'owner',
    });
    await changeRole(env.ctl, owner.id, 'viewer');
    await expect(removePerson(env.ctl, second.id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('limits a viewer to chosen sites and back to all', async () => {
    const a = await createSite(env.ctl, { domain: 'a.com' });
    await createSite(env.ctl, { domain: 'b.com' });
    const v = await createPerson(env.ctl, {
      email: 'v@example.com',
      password: 'pw-0123456789',
      role: 'viewer',
    });
    const row = () =>
      env.ctl.db.selectFrom('people').selectAll().where('id', '=', v.id).executeTakeFirstOrThrow();
    expect(await siteScopeOf(env.ctl, await row())).toBe('all');
    await setSiteAccess(env.ctl, v.id, [a.id]);
    expect(await siteScopeOf(env.ctl, await row())).toEqual(new Set([a.id]));
    await expect(setSiteAccess(env.ctl, v.id, ['nosuchsite'])).rejects.toMatchObject({ field: 'sites' });
    await setSiteAccess(env.ctl, v.id, 'all');
    expect(await siteScopeOf(env.ctl, await row())).toBe('all');
  });
});
