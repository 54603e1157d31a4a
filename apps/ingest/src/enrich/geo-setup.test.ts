import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FetchLike, geoFileName } from './geo-download.ts';
import { createGeo } from './geo-setup.ts';
import { buildMmdb, cityRecord } from './testing/mmdb-writer.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'footfall-geosetup-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const neverCalled: FetchLike = () => {
  throw new Error('no download expected');
};

describe('createGeo', () => {
  it("records nothing and downloads nothing when geo is 'off'", () => {
    const geo = createGeo({ mode: 'off', dir, shared: false, fetch: neverCalled });
    expect(geo.updater).toBeNull();
    expect(geo.reader).toBeNull();
    expect(geo.lookup.lookup('203.0.113.9')).toBeNull();
  });

  it('reads a shared geo directory without ever downloading', async () => {
    const file = join(dir, geoFileName('city'));
    await writeFile(
      `${file}.tmp`,
      buildMmdb({
        databaseType: 'x',
        networks: [['203.0.113.0/24', cityRecord('NL', 'North Holland', 'Amsterdam')]],
      }),
    );
    await rename(`${file}.tmp`, file);
    const geo = createGeo({ mode: 'city', dir, shared: true, fetch: neverCalled });
    expect(geo.updater).toBeNull();
    await geo.reader?.load();
    expect(geo.lookup.lookup('203.0.113.9')).toEqual({
      country: 'NL',
      region: 'North Holland',
      city: 'Amsterdam',
    });
  });

  it('gives an updater for its own directory otherwise', () => {
    const geo = createGeo({ mode: 'country', dir, shared: false });
    expect(geo.updater).not.toBeNull();
    expect(geo.lookup.lookup('203.0.113.9')).toBeNull(); // nothing loaded yet, and no throw
  });
});
