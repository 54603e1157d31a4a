import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '@footfall/clickhouse-test-server';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { encodeWalRecord, type WalEvent } from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import { afterAll, describe, expect, it } from 'vitest';
import { runFootfall, tempDir } from '../support/footfall.ts';
import { seeded } from './plan.ts';

/**
 * The loader keeps the visits in progress in memory and each visitor's record in visitors.db,
 * written after every batch commits. A query service killed while it loads (mid-batch, between a
 * batch's commit and its record's, while visits are open) and started again must end with every
 * report exactly as an uninterrupted run gives them. The uninterrupted run is DuckDB's; the
 * killed one runs on `engine` (kill-mid-batch.test.ts: DuckDB; kill-mid-batch-clickhouse.test.ts:
 * ClickHouse, on the chdb test server, whose loader sends a batch again after a kill).
 */
/** The JSON path of the first place where two values part, as `.a[3].b`. */
function firstDifference(a: unknown, b: unknown, at = ''): string {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return `${at} (${JSON.stringify(a)} against ${JSON.stringify(b)})`;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    return firstDifference(x, y, Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`);
  }
  return `${at} (equal)`;
}

export function killMidBatch(engine: 'duckdb' | 'clickhouse'): void {
  const TOKEN = 'kill-mid-batch-token-0123456789';
  const DAY = 86_400_000;
  const MINUTE = 60_000;
  const END = Date.UTC(2026, 10, 20, 12, 0, 0);

  /** A WAL of `total` events: visitors returning over ten days, out-of-order events, cookieless nights. */
  function events(site: string, total: number): WalEvent[] {
    const random = seeded(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const out: { e: WalEvent; arrives: number }[] = [];
    for (let v = 0; out.length < total; v++) {
      const hashed = v % 10 === 0;
      const visitor = `kill-${String(v).padStart(5, '0')}`;
      for (let visit = 0; visit < 1 + Math.floor(random() * 4); visit++) {
        let at = END - Math.floor(random() * 10 * DAY);
        // a cookieless visit over midnight: yesterday's id, then today's carrying it
        const midnight = hashed && visit === 0 ? Math.ceil(at / DAY) * DAY : null;
        const dims = {
          channel: pick(['Direct', 'Organic Search', 'Referral', 'Email'] as const),
          referrerHost: pick([null, 'news.example', 'search.example']),
          utmCampaign: pick([null, null, 'spring', 'launch']),
          country: pick(['DE', 'FR', 'US', null]),
          device: pick(['desktop', 'mobile'] as const),
          browser: pick(['Chrome', 'Firefox']),
          os: pick(['Windows', 'Android']),
          language: pick(['en', 'de']),
        };
        if (midnight !== null) at = midnight - 5 * MINUTE;
        for (let n = 0; n < 1 + Math.floor(random() * 6); n++) {
          const kind = n > 0 && random() < 0.2 ? 'ev' : random() < 0.25 ? 'en' : 'pv';
          const afterMidnight = midnight !== null && at >= midnight;
          const e: WalEvent = {
            t: 'event',
            id: `k${String(out.length).padStart(7, '0')}`,
            site,
            at,
            kind,
            host: 'example.com',
            path: pick(['/', '/pricing', '/docs', '/blog', '/blog/post']),
            visitor: afterMidnight ? `${visitor}-day2` : visitor,
            idMode: hashed ? 'hash' : 'cookie',
            ...(afterMidnight && at < midnight + 30 * MINUTE ? { carry: visitor } : {}),
            ...(kind === 'ev' ? { name: pick(['Signup', 'Download']) } : {}),
            ...(kind === 'en' ? { engagedMs: 5000 } : {}),
            ...dims,
          };
          // most arrive as they happen; some minutes to hours late (a tracker's queue)
          const arrives = random() < 0.04 ? at + Math.floor(random() * 3 * 60) * MINUTE : at;
          out.push({ e, arrives });
          at += Math.floor(random() * 20 * MINUTE);
        }
      }
    }
    return out.sort((a, b) => a.arrives - b.arrives).map((x) => x.e);
  }

  /** A data directory with the site and an empty WAL. */
  async function dataDir(): Promise<{ dir: string; site: string }> {
    const dir = join(tempDir('ff-kill-'), 'data');
    const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dir }));
    const control = openControlDb({
      path: instance.paths.controlDb,
      secret: instance.secret,
      version: footfallVersion(),
    });
    const site = (await createSite(control, { domain: 'example.com' })).id;
    await control.close();
    return { dir, site };
  }

  /** Appends events to the data directory's WAL, as a gateway would. */
  async function append(dir: string, list: readonly WalEvent[]): Promise<void> {
    const wal = await openWalWriter({ dir: join(dir, 'wal', 'test') });
    for (const e of list) await wal.append(encodeWalRecord(e));
    await wal.close();
  }

  /** GET over the query service's own socket, as the gateway forwards. */
  function get(dir: string, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: join(dir, 'run', 'query.sock'),
          path,
          headers: { authorization: `Bearer ${TOKEN}`, 'x-footfall-client-address': '127.0.0.1' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (s: string) => {
            body += s;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const query = (dir: string, env: Record<string, string> = {}) =>
    runFootfall(['query'], {
      FOOTFALL_DATA_DIR: dir,
      FOOTFALL_API_TOKEN: TOKEN,
      FOOTFALL_LOG_LEVEL: 'info',
      ...env,
    });

  /** Waits until the query service has loaded every record of the WAL. */
  async function caughtUp(dir: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const res = await get(dir, '/api/v1/health').catch(() => undefined);
      const health =
        res?.status === 200
          ? (JSON.parse(res.body) as { writer: { lag_events: number }; engine: { ready: boolean } })
          : undefined;
      // an engine on a server starts tailing once it is open
      if (health?.engine.ready && health.writer.lag_events === 0) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the query service did not catch up');
  }

  /** Every report the comparison covers, as JSON text. */
  async function reports(dir: string, site: string): Promise<Record<string, string>> {
    const from = new Date(END - 11 * DAY).toISOString().slice(0, 10);
    const to = new Date(END + DAY).toISOString().slice(0, 10);
    const base = `/api/v1/sites/${site}`;
    const paths = {
      whole: `${base}/report?from=${from}&to=${to}&daily=1&deep=1`,
      day: `${base}/report?from=${new Date(END - 3 * DAY).toISOString().slice(0, 10)}&to=${to}&compare=previous`,
      filtered: `${base}/report?from=${from}&to=${to}&f=${encodeURIComponent('channel:Referral')}`,
      hourly: `${base}/report?from=${new Date(END - DAY).toISOString().slice(0, 10)}&to=${to}&bucket=hour`,
      retention: `${base}/report/retention?from=${from}&to=${to}`,
      heatmap: `${base}/report/heatmap?from=${from}&to=${to}`,
    };
    const out: Record<string, string> = {};
    for (const [name, path] of Object.entries(paths)) {
      const res = await get(dir, path);
      expect(res.status, `${name}: ${res.body}`).toBe(200);
      out[name] = res.body;
    }
    return out;
  }

  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  describe(`a query service on ${engine} killed while it loads`, () => {
    it('ends with every report as an uninterrupted run on DuckDB gives it', async () => {
      const { dir, site } = await dataDir();
      const clickhouse =
        engine === 'clickhouse'
          ? await startTestServer({ path: join(tempDir('ff-kill-ch-'), 'ch'), port: 0 })
          : undefined;
      if (clickhouse) cleanups.push(() => clickhouse.close());
      const env: Record<string, string> = clickhouse
        ? { FOOTFALL_ENGINE: 'clickhouse', FOOTFALL_CLICKHOUSE_URL: clickhouse.url }
        : {};
      const copy = join(tempDir('ff-kill-copy-'), 'data');
      cpSync(dir, copy, { recursive: true });
      const all = events(site, 60_000);

      await append(dir, all);
      const calm = query(dir);
      cleanups.push(() => calm.stop());
      await calm.waitForLog((l) => l.msg === 'query service listening', 30_000);
      await caughtUp(dir);
      const expected = await reports(dir, site);
      await calm.stop();
      rmSync(dir, { recursive: true, force: true });

      // the same WAL arrives in six parts; the service is killed after each of the first five: right
      // after start, the moment a batch has committed (before or while its visitor records are
      // written), and at random moments while it loads
      const parts = 6;
      const size = Math.ceil(all.length / parts);
      const random = seeded(Number(process.env.KILL_SEED ?? 11));
      const lagOf = async () => {
        const res = await get(copy, '/api/v1/health').catch(() => undefined);
        const health =
          res?.status === 200
            ? (JSON.parse(res.body) as { writer: { lag_events: number }; engine: { ready: boolean } })
            : undefined;
        return health?.engine.ready ? health.writer.lag_events : undefined;
      };
      const lags: number[] = [];
      for (let kill = 0; kill < parts - 1; kill++) {
        await append(copy, all.slice(kill * size, (kill + 1) * size));
        const run = query(copy, env);
        await run.waitForLog((l) => l.msg === 'query service listening', 60_000);
        if (kill === 0) await new Promise((r) => setTimeout(r, 50));
        else if (kill === 1) {
          // the engine open and tailing (on ClickHouse it opens after the service listens, and the
          // tailer measures the backlog once it is open), then a commit
          let before = await lagOf();
          for (let i = 0; i < 2000 && (before === undefined || before === 0); i++) {
            await new Promise((r) => setTimeout(r, 5));
            before = await lagOf();
          }
          for (let i = 0; i < 1000 && (await lagOf()) === before; i++) {
            await new Promise((r) => setTimeout(r, 5));
          }
        } else await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1500)));
        lags.push((await lagOf()) ?? -1);
        run.child.kill('SIGKILL');
        await run.exited;
      }
      await append(copy, all.slice((parts - 1) * size));
      const last = query(copy, env);
      cleanups.push(() => last.stop());
      await last.waitForLog((l) => l.msg === 'query service listening', 60_000);
      await caughtUp(copy);
      const after = await reports(copy, site);
      console.log(`kill-mid-batch: lag at each kill ${JSON.stringify(lags)}`);
      // kills came while records were still to load, and after batches had committed
      expect(lags.some((lag) => lag > 0)).toBe(true);
      expect(lags.some((lag, kill) => lag >= 0 && lag < (kill + 1) * size)).toBe(true);
      for (const name of Object.keys(expected)) {
        if (after[name] === expected[name]) continue;
        // the CI log shows only the start of each text: name where they part, and keep both whole
        const kept = join(mkdtempSync(join(tmpdir(), 'ff-kill-diff-')), `${name}.json`);
        writeFileSync(
          kept,
          JSON.stringify({ expected: JSON.parse(expected[name]!), after: JSON.parse(after[name]!) }, null, 1),
        );
        const where = firstDifference(JSON.parse(expected[name]!), JSON.parse(after[name]!));
        expect.fail(`${name} differs at ${where} (both reports: ${kept})`);
      }
    }, 300_000);
  });
}
