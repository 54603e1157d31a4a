import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MmdbGeoLookup, noGeoLookup } from './geo.ts';
import { buildMmdb, cityRecord, countryRecord } from './testing/mmdb-writer.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'footfall-geo-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const countryDb = () =>
  buildMmdb({
    databaseType: 'DBIP-Country-Lite',
    networks: [
      ['203.0.113.0/24', countryRecord('NL')],
      ['198.51.100.0/24', { registered_country: { iso_code: 'us' } }],
      ['2001:db8::/32', countryRecord('FR')],
    ],
  });

const cityDb = () =>
  buildMmdb({
    databaseType: 'DBIP-City-Lite',
    networks: [
      ['203.0.113.0/24', cityRecord('NL', 'North Holland', 'Amsterdam')],
      ['192.0.2.0/24', { country: { iso_code: 'JP' } }],
      ['2001:db8::/32', cityRecord('FR', 'Île-de-France', 'Paris')],
    ],
  });

async function writeDb(name: string, db: Buffer): Promise<string> {
  const file = join(dir, name);
  await writeFile(`${file}.tmp`, db);
  await rename(`${file}.tmp`, file);
  return file;
}

describe('MmdbGeoLookup in country mode', () => {
  it('gives the country only, for IPv4 and IPv6', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('c.mmdb', countryDb()), mode: 'country' });
    await geo.load();
    expect(geo.lookup('203.0.113.9')).toEqual({ country: 'NL', region: null, city: null });
    expect(geo.lookup('2001:db8::1')).toEqual({ country: 'FR', region: null, city: null });
    expect(geo.state()).toEqual({ loadedFrom: join(dir, 'c.mmdb'), lastError: null });
  });

  it('falls back to the registered country and uppercases it', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('c.mmdb', countryDb()), mode: 'country' });
    await geo.load();
    expect(geo.lookup('198.51.100.1')?.country).toBe('US');
  });

  it('gives no region or city even from a city database', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('city.mmdb', cityDb()), mode: 'country' });
    await geo.load();
    expect(geo.lookup('203.0.113.9')).toEqual({ country: 'NL', region: null, city: null });
  });

  it('gives null for unknown, private or invalid addresses instead of throwing', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('c.mmdb', countryDb()), mode: 'country' });
    await geo.load();
    expect(geo.lookup('10.0.0.1')).toBeNull();
    expect(geo.lookup('not-an-ip')).toBeNull();
    expect(geo.lookup('')).toBeNull();
  });
});

describe('MmdbGeoLookup in city mode', () => {
  it('gives country, region and city', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('city.mmdb', cityDb()), mode: 'city' });
    await geo.load();
    expect(geo.lookup('203.0.113.9')).toEqual({ country: 'NL', region: 'North Holland', city: 'Amsterdam' });
    expect(geo.lookup('2001:db8:5::1', { recordCity: true })).toEqual({
      country: 'FR',
      region: 'Île-de-France',
      city: 'Paris',
    });
  });

  it('drops the city, not the region, when the site does not record cities', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('city.mmdb', cityDb()), mode: 'city' });
    await geo.load();
    expect(geo.lookup('203.0.113.9', { recordCity: false })).toEqual({
      country: 'NL',
      region: 'North Holland',
      city: null,
    });
  });

  it('gives null parts where the database has no region or city', async () => {
    const geo = new MmdbGeoLookup({ file: await writeDb('city.mmdb', cityDb()), mode: 'city' });
    await geo.load();
    expect(geo.lookup('192.0.2.1')).toEqual({ country: 'JP', region: null, city: null });
  });
});

describe('MmdbGeoLookup loading', () => {
  it('returns null and records why while the file is missing, then loads it once it appears', async () => {
    let now = 0;
    const file = join(dir, 'late.mmdb');
    const geo = new MmdbGeoLookup({ file, mode: 'country', checkEveryMs: 1000, now: () => now });
    await geo.load();
    expect(geo.lookup('203.0.113.9')).toBeNull();
    expect(geo.state().loadedFrom).toBeNull();
    expect(geo.state().lastError?.reason).toMatch(/ENOENT/);

    await writeDb('late.mmdb', countryDb());
    now = 5000;
    geo.lookup('203.0.113.9'); // notices the interval has passed and starts a check
    await geo.settled();
    expect(geo.lookup('203.0.113.9')?.country).toBe('NL');
    expect(geo.state().lastError).toBeNull();
  });

  it('picks up a replaced file after the check interval', async () => {
    let now = 0;
    const file = await writeDb('db.mmdb', countryDb());
    const geo = new MmdbGeoLookup({ file, mode: 'country', checkEveryMs: 60_000, now: () => now });
    await geo.load();
    expect(geo.lookup('203.0.113.9')?.country).toBe('NL');
    await geo.settled(); // the first lookup's own check

    await writeDb(
      'db.mmdb',
      buildMmdb({ databaseType: 'x', networks: [['203.0.113.0/24', countryRecord('BE')]] }),
    );
    now = 30_000; // within the interval: no check is started
    geo.lookup('203.0.113.9');
    await geo.settled();
    expect(geo.lookup('203.0.113.9')?.country).toBe('NL');
    now = 61_000;
    geo.lookup('203.0.113.9');
    await geo.settled();
    expect(geo.lookup('203.0.113.9')?.country).toBe('BE');
  });

  it('keeps answering from the old database when the new file is broken', async () => {
    const file = await writeDb('db.mmdb', countryDb());
    const geo = new MmdbGeoLookup({ file, mode: 'country' });
    await geo.load();
    await writeDb('db.mmdb', Buffer.from('this is not a database'));
    await geo.load();
    expect(geo.lookup('203.0.113.9')?.country).toBe('NL');
    expect(geo.state().lastError).not.toBeNull();
    expect(geo.state().loadedFrom).toBe(file);
  });
});

describe('noGeoLookup', () => {
  it('records no location', () => {
    expect(noGeoLookup.lookup('203.0.113.9')).toBeNull();
  });
});
