import type { WalEvent } from '@footfall/schema';
import type { Engine } from './engine.ts';
import { useSlowReports } from './report.ts';
import { parseReportParams } from './report-params.ts';
import type { Report } from './report-types.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * Test support for comparing the ways a report is computed (report-fast.test.ts,
 * rollups.test.ts): visitors coming back after hours to months, loaded in batches with late
 * events that merge, split and extend stored visits, and report parameters of every kind.
 */
const CHANNELS = ['Direct', 'Organic Search', 'Email', 'Referral'] as const;
const COUNTRIES = ['DE', 'FR', null] as const;
const BROWSERS = ['Firefox', 'Chrome'] as const;
const PATHS = ['/a', '/b', '/c', '/d', '/e'] as const;
const REFERRERS = ['news.example', 'blog.example', null] as const;
const DAY = 86_400_000;
const FIRST = Date.parse('2026-03-01T00:00:00Z');

export function randomEvents(): WalEvent[] {
  let seed = 11;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const pick = <T>(list: readonly T[]): T => list[rand(list.length)] as T;
  const events: WalEvent[] = [];
  for (let v = 0; v < 120; v++) {
    const visitor = `visitor-${v}`;
    const browser = pick(BROWSERS);
    // a visitor comes back within hours, days, weeks or months over 140 days (DST change on 29 March)
    let at = FIRST + rand(45 * 24) * 3_600_000;
    for (let n = 1 + rand(6); n > 0 && at < FIRST + 140 * DAY; n--) {
      const channel = pick(CHANNELS);
      const referrerHost = channel === 'Referral' ? pick(REFERRERS) : null;
      const country = rand(5) === 0 ? pick(COUNTRIES) : 'DE';
      for (let k = 1 + rand(3); k > 0; k--) {
        const path = pick(PATHS);
        // a site with a blog on its own subdomain (the hostname breakdown and filter)
        const host = path === '/e' ? 'blog.example.com' : 'example.com';
        events.push(
          ev(new Date(at).toISOString(), { visitor, host, path, channel, referrerHost, country, browser }),
        );
        if (rand(4) === 0) {
          events.push(
            ev(new Date(at + 1000).toISOString(), { visitor, path, kind: 'ev', name: `E${rand(2)}` }),
          );
        }
        // engagement on some pages, sometimes in two reports (no draw: the other events stay)
        const n = events.length;
        for (let r = n % 3 === 0 ? 1 + (n % 2) : 0; r > 0; r--) {
          const scroll = (n * 37 + r * 11) % 101;
          const engagedMs = ((n * 7_919) % 90_000) + r;
          events.push(
            ev(new Date(at + 2000 * r).toISOString(), { visitor, path, kind: 'en', scroll, engagedMs }),
          );
        }
        at += (1 + rand(20)) * 60_000;
      }
      at += [40 * 60_000, 5 * 3_600_000, 2 * DAY, 9 * DAY, 40 * DAY, 55 * DAY][rand(6)]!;
    }
  }
  return events;
}

/** Loads the events in batches of mixed-up order, so later batches rebuild stored visits. */
export async function load(target: Pick<Engine, 'applyBatch'>, events: WalEvent[]): Promise<void> {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  // every 7th event is held back and arrives with a later batch (up to a day late)
  const late = sorted.filter((_, i) => i % 7 === 3);
  const onTime = sorted.filter((_, i) => i % 7 !== 3);
  const batches: WalEvent[][] = [];
  for (let i = 0; i < onTime.length; i += 150) {
    const batch = onTime.slice(i, i + 150);
    const until = batch.at(-1)!.at;
    batches.push([...batch, ...late.filter((e) => e.at <= until - DAY / 2 && !batches.flat().includes(e))]);
  }
  const loaded = new Set(batches.flat());
  batches.push(late.filter((e) => !loaded.has(e)));
  let seq = 1n;
  for (const batch of batches) {
    const records = onStream('a', batch, seq);
    seq += BigInt(records.length);
    await target.applyBatch({ records });
  }
}

export const NOW = Date.parse('2026-08-20T12:00:00Z');

/**
 * Parameter sets: periods of 1 day to 5 months, every bucket, daily, deep, compare, two zones.
 * Visitors come back after up to 55 days, so long periods hold repeat visits whose previous one
 * lies more than 33 days back (the loader's old look-back).
 */
export const CASES: { zone: string; q: Record<string, string> }[] = [];
for (const zone of ['UTC', 'Europe/Berlin']) {
  for (const [from, to] of [
    ['2026-03-05', '2026-03-05'],
    ['2026-03-10', '2026-03-16'],
    ['2026-03-20', '2026-04-02'],
    ['2026-03-01', '2026-03-30'],
    ['2026-03-08', '2026-04-08'],
    ['2026-03-15', '2026-06-20'],
    ['2026-03-01', '2026-07-31'],
  ] as const) {
    CASES.push({ zone, q: { from, to, daily: '1', deep: '1', limit: '250', compare: 'previous' } });
    CASES.push({ zone, q: { from, to, limit: '3' } });
  }
  CASES.push({ zone, q: { from: '2026-03-28', to: '2026-03-30', bucket: 'hour', limit: '1000' } });
  CASES.push({
    zone,
    q: { from: '2026-03-02', to: '2026-03-31', bucket: 'week', daily: '1', limit: '1000' },
  });
  CASES.push({ zone, q: { from: '2026-03-01', to: '2026-07-31', bucket: 'month', limit: '1000' } });
  // a week bucket clipped by a period that starts on a Wednesday
  CASES.push({ zone, q: { from: '2026-03-11', to: '2026-04-05', bucket: 'week', limit: '1000' } });
}

export async function reports(target: Engine, slow: boolean): Promise<Report[]> {
  useSlowReports(slow);
  try {
    const out = [];
    for (const { zone, q } of CASES) {
      const params = parseReportParams(q, zone, NOW);
      out.push(await target.report({ site: 'site1', timeZone: zone, params }));
    }
    return out;
  } finally {
    useSlowReports(false);
  }
}
