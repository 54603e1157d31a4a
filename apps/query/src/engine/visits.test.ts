import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_KINDS, type WalEvent } from '@footfall/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { openDuckDb } from './duckdb.ts';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine, JourneyVisit } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';
import { activityKindSql } from './visits-sql.ts';

let engine: Engine;
let seq = 0n;
afterEach(async () => engine?.close());

const open = async () => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
  seq = 0n;
};
const load = async (...events: WalEvent[]) => {
  await engine.applyBatch({ records: onStream('a', events, seq + 1n) });
  seq += BigInt(events.length);
};
/** The visits of visitor v1, oldest first. */
const visits = async (): Promise<JourneyVisit[]> =>
  (await engine.journey({ site: 'site1', visitor: 'v1' })).visits.reverse();
const shape = (v: JourneyVisit) => ({
  started: v.started,
  pageviews: v.pageviews,
  entry: v.entry_page,
  exit: v.exit_page,
  duration: v.duration_seconds,
});

describe('visits', () => {
  it('starts a new visit after more than 30 minutes without an event, and not at exactly 30', async () => {
    await open();
    await load(
      ev('2026-03-02T10:00:00Z', { path: '/a' }),
      ev('2026-03-02T10:30:00Z', { path: '/b' }),
      ev('2026-03-02T11:00:01Z', { path: '/c' }),
    );
    expect((await visits()).map(shape)).toEqual([
      { started: '2026-03-02T10:00:00.000Z', pageviews: 2, entry: '/a', exit: '/b', duration: 1800 },
      { started: '2026-03-02T11:00:01.000Z', pageviews: 1, entry: '/c', exit: '/c', duration: 0 },
    ]);
  });

  it('lengthens a visit by an engagement event that came in a batch before its pageview', async () => {
    await open();
    await load(ev('2026-03-02T10:01:00Z', { kind: 'en', path: '/a', engagedMs: 20_000 }));
    await load(ev('2026-03-02T10:00:00Z', { path: '/a' }));
    expect((await visits()).map(shape)).toEqual([
      { started: '2026-03-02T10:00:00.000Z', pageviews: 1, entry: '/a', exit: '/a', duration: 60 },
    ]);
  });

  it('lengthens it so after a restart between the two, and after a replay that left it unattached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ff-orphan-'));
    try {
      const path = join(dir, 'analytics.duckdb');
      engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
      seq = 0n;
      await load(ev('2026-03-02T10:01:00Z', { kind: 'en', path: '/a', engagedMs: 20_000 }));
      // a late custom event of the day before replays the visitor: the engagement stays unattached
      await load(ev('2026-03-01T09:00:00Z', { kind: 'ev', name: 'Play', path: '/v' }));
      await engine.close();
      engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
      await load(ev('2026-03-02T10:00:00Z', { path: '/a' }));
      expect((await visits()).map(shape)).toEqual([
        { started: '2026-03-01T09:00:00.000Z', pageviews: 0, entry: null, exit: null, duration: 0 },
        { started: '2026-03-02T10:00:00.000Z', pageviews: 1, entry: '/a', exit: '/a', duration: 60 },
      ]);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets the first pageview decide channel, referrer and campaign even when a custom event came first', async () => {
    await open();
    await load(
      ev('2026-03-02T10:00:00Z', { kind: 'ev', name: 'Play', channel: 'Direct', path: '/video' }),
      ev('2026-03-02T10:00:05Z', {
        path: '/landing',
        channel: 'Email',
        referrerHost: 'mail.example',
        utmCampaign: 'spring',
      }),
      ev('2026-03-02T10:05:00Z', { path: '/next', channel: 'Referral', referrerHost: 'other.example' }),
    );
    const [visit] = await visits();
    expect(visit).toMatchObject({
      channel: 'Email',
      referrer: 'mail.example',
      campaign: 'spring',
      entry_page: '/landing',
      exit_page: '/next',
    });
    expect(visit?.events.map((e) => e.kind)).toEqual(['ev', 'pv', 'pv']);
  });

  it('merges two visits when a late event fills the gap between them, and keeps the merged id on replay', async () => {
    await open();
    await load(ev('2026-03-02T10:00:00Z', { path: '/a' }), ev('2026-03-02T10:50:00Z', { path: '/c' }));
    expect(await visits()).toHaveLength(2);
    await load(ev('2026-03-02T10:25:00Z', { path: '/b' }));
    const merged = await visits();
    expect(merged.map(shape)).toEqual([
      { started: '2026-03-02T10:00:00.000Z', pageviews: 3, entry: '/a', exit: '/c', duration: 3000 },
    ]);
    expect(new Set(merged[0]?.events.map((e) => e.visit))).toEqual(new Set([merged[0]?.visit]));

    // The same events loaded in order into a fresh database give the same visit id.
    const id = merged[0]?.visit;
    await engine.close();
    await open();
    await load(
      ev('2026-03-02T10:00:00Z', { path: '/a' }),
      ev('2026-03-02T10:25:00Z'),
      ev('2026-03-02T10:50:00Z'),
    );
    expect((await visits())[0]?.visit).toBe(id);
  });

  it('moves a visit start earlier when a late event arrives before it, changing entry page and channel', async () => {
    await open();
    await load(ev('2026-03-02T10:20:00Z', { path: '/second', channel: 'Direct' }));
    await load(
      ev('2026-03-02T10:00:00Z', { path: '/first', channel: 'Organic Search', referrerHost: 'google.com' }),
    );
    expect((await visits()).map((v) => [v.started, v.entry_page, v.channel, v.pageviews])).toEqual([
      ['2026-03-02T10:00:00.000Z', '/first', 'Organic Search', 2],
    ]);
  });

  it('puts a late event that is far from every visit into a visit of its own, between the others', async () => {
    await open();
    await load(ev('2026-03-02T08:00:00Z', { path: '/a' }), ev('2026-03-02T12:00:00Z', { path: '/c' }));
    await load(ev('2026-03-02T10:00:00Z', { path: '/b' }));
    expect((await visits()).map((v) => v.entry_page)).toEqual(['/a', '/b', '/c']);
  });

  it('counts an engagement event toward duration without starting a visit, and ignores one long after', async () => {
    await open();
    await load(
      ev('2026-03-02T10:00:00Z', { path: '/a' }),
      ev('2026-03-02T10:20:00Z', { kind: 'en', engagedMs: 1_200_000 }),
      ev('2026-03-02T14:00:00Z', { kind: 'en', engagedMs: 5_000 }),
    );
    const all = await visits();
    expect(all.map(shape)).toEqual([
      { started: '2026-03-02T10:00:00.000Z', pageviews: 1, entry: '/a', exit: '/a', duration: 1200 },
    ]);
    expect(all[0]?.events.map((e) => e.kind)).toEqual(['pv', 'en']);
  });

  it('keeps visitors and sites apart', async () => {
    await open();
    await load(
      ev('2026-03-02T10:00:00Z'),
      ev('2026-03-02T10:01:00Z', { visitor: 'v2' }),
      ev('2026-03-02T10:02:00Z', { site: 'site2' }),
    );
    expect((await visits()).map((v) => v.pageviews)).toEqual([1]);
    expect((await engine.journey({ site: 'site2', visitor: 'v1' })).visits).toHaveLength(1);
  });
});

describe('activityKindSql', () => {
  it('keeps exactly pageviews and custom events of every kind an event can have', async () => {
    const db = await openDuckDb({ path: ':memory:', threads: 1, memoryLimit: '64MB' });
    try {
      const kinds = EVENT_KINDS.map((k) => `('${k}')`).join(', ');
      const rows = await db.read({
        sql: `SELECT kind FROM (VALUES ${kinds}) t(kind) WHERE ${activityKindSql()} ORDER BY kind`,
        params: [],
      });
      expect(rows.map((r) => r['kind'])).toEqual(['ev', 'pv']);
    } finally {
      db.close();
    }
  });
});
