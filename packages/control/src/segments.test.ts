import { afterEach, describe, expect, it } from 'vitest';
import { createPerson, removePerson } from './people.ts';
import { createSegment, listSegments } from './segments.ts';
import { createSite } from './sites.ts';
import { tempControlDb } from './test-support.ts';

describe('segments', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
  });

  it('go with their author when private, and stay without one when shared', async () => {
    const db = tempControlDb();
    cleanup = db.cleanup;
    const site = await createSite(db.ctl, { domain: 'example.com' });
    const keep = await createPerson(db.ctl, {
      email: 'keep@example.com',
      password: 'a long enough password',
      role: 'owner',
    });
    const gone = await createPerson(db.ctl, {
      email: 'gone@example.com',
      password: 'a long enough password',
      role: 'owner',
    });
    const input = { siteId: site.id, filters: ['country:DE'] };
    await createSegment(db.ctl, { ...input, personId: gone.id, name: 'Private', shared: false });
    await createSegment(db.ctl, { ...input, personId: gone.id, name: 'Shared', shared: true });
    await createSegment(db.ctl, { ...input, personId: keep.id, name: 'Mine', shared: false });
    await removePerson(db.ctl, gone.id);
    const left = await listSegments(db.ctl, site.id, keep.id);
    expect(left.map((s) => [s.name, s.author?.email ?? null])).toEqual([
      ['Mine', 'keep@example.com'],
      ['Shared', null],
    ]);
    expect((await listSegments(db.ctl, site.id, null)).map((s) => s.name)).toEqual(['Shared']);
  });
});
