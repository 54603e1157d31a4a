import { type CityResponse, Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { buildMmdb, cityRecord, countryRecord } from './mmdb-writer.ts';

describe('buildMmdb (test helper)', () => {
  it('writes a database the maxmind reader opens and answers from, IPv4 and IPv6', () => {
    const db = buildMmdb({
      databaseType: 'DBIP-City-Lite',
      networks: [
        ['203.0.113.0/24', cityRecord('NL', 'North Holland', 'Amsterdam')],
        ['198.51.100.0/25', countryRecord('DE')],
        ['2001:db8::/32', countryRecord('FR')],
      ],
    });
    const reader = new Reader<CityResponse>(db);
    expect(reader.metadata.databaseType).toBe('DBIP-City-Lite');
    expect(reader.get('203.0.113.77')).toMatchObject({
      country: { iso_code: 'NL' },
      city: { names: { en: 'Amsterdam' } },
      subdivisions: [{ names: { en: 'North Holland' } }],
    });
    expect(reader.get('198.51.100.1')).toMatchObject({ country: { iso_code: 'DE' } });
    expect(reader.get('198.51.100.200')).toBeNull();
    expect(reader.get('2001:db8:1::5')).toMatchObject({ country: { iso_code: 'FR' } });
    expect(reader.get('192.0.2.1')).toBeNull();
  });

  it('lets a more specific network override part of a wider one', () => {
    const db = buildMmdb({
      databaseType: 't',
      networks: [
        ['10.0.0.0/8', countryRecord('AA')],
        ['10.1.0.0/16', countryRecord('BB')],
      ],
    });
    const reader = new Reader<CityResponse>(db);
    expect(reader.get('10.1.2.3')?.country?.iso_code).toBe('BB');
    expect(reader.get('10.2.2.3')?.country?.iso_code).toBe('AA');
    expect(reader.get('10.255.0.1')?.country?.iso_code).toBe('AA');
  });
});
