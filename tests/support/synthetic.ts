import { copyFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createLogger } from '@footfall/http';
import { openAnalytics } from '@footfall/query';
import { MIGRATIONS } from '../../apps/query/src/engine/migrations.ts';

/**
 * Fills an analytics database with synthetic visits of one site straight in SQL, for tests that
 * need reports heavy enough to run for seconds (loading that many events through the gateway would
 * take minutes). `visits` visits spread over `days` days before `endMs`, each of 1 to 5 pageviews
 * of 400 paths, by a third as many visitors. The rows are what the loader would store, the
 * previous-visit columns computed as migrations 5 and 6 do (from all visits), as unfiltered
 * reports read them.
 */
export async function synthesizeVisits(
  path: string,
  o: { site: string; visits: number; days: number; endMs: number },
): Promise<void> {
  // migrate a fresh file first, as the query service would
  const analytics = await openAnalytics({
    walRoot: `${path}.nowal`,
    engine: { path, threads: 2, memoryLimit: '1GB' },
    logger: createLogger({ level: 'silent', name: 'synthetic' }),
  });
  await analytics.engine.close();
  const instance = await DuckDBInstance.create(path, { threads: '2', memory_limit: '2GB' });
  const c = await instance.connect();
  await c.run("SET TimeZone = 'UTC'");
  const stepMs = Math.floor((o.days * 86_400_000) / o.visits);
  const start = o.endMs - o.days * 86_400_000;
  const channels = "['Direct','Organic Search','Referral','Email','Organic Social','Paid Search']";
  await c.run(
    `CREATE TEMP TABLE v AS
     SELECT i, $1::VARCHAR AS site, 'syn' || (i % ${Math.max(1, Math.floor(o.visits / 3))}) AS visitor,
       make_timestamptz((($2 + i * $3) * 1000)::BIGINT) AS started_at, 1 + (i % 5) AS pageviews,
       ${channels}[1 + (i % 6)] AS channel, ['desktop','mobile','tablet'][1 + (i % 3)] AS device,
       ['US','DE','FR','GB','IN','BR'][1 + (i % 6)] AS country
     FROM range(${o.visits}) t(i)`,
    [o.site, start, stepMs],
  );
  await c.run(
    `INSERT INTO sessions (site, session_id, visitor, visitor_key, started_at, last_at, ended_at, duration_ms,
       pageviews, events, channel, referrer, entry_page, exit_page, country, device, browser, os, language)
     SELECT site, i, visitor, md5_number_lower(visitor), started_at, started_at + to_minutes(pageviews - 1),
       started_at + to_minutes(pageviews - 1), (pageviews - 1) * 60000, pageviews, (i % 4 = 0)::INTEGER, channel,
       CASE WHEN channel = 'Referral' THEN 'ref' || (i % 50) || '.example' END, '/p' || (i % 400),
       '/p' || ((i + pageviews - 1) % 400), country, device, 'Chrome', 'Windows', 'en'
     FROM v`,
  );
  await c.run(
    `INSERT INTO events (site, id, ts, kind, host, path, visitor_key, id_mode, channel, device,
       session_id, visit_start, visit_first)
     SELECT site, 'syn-' || i || '-' || k, started_at + to_minutes(k), 'pv', 'example.com', '/p' || ((i + k) % 400),
       md5_number_lower(visitor), 'cookie', channel, device, i, started_at, true
     FROM v, range(5) r(k) WHERE k < pageviews`,
  );
  // the previous visits from all visits, as migration 5 computes them, stored as migration 6 does;
  // each first view's previous one likewise, by visitor_key (events have no visitor string)
  const [visits] = MIGRATIONS.find((m) => m.version === 5)?.statements ?? [];
  const [stored] = MIGRATIONS.find((m) => m.version === 6)?.statements ?? [];
  if (!visits?.startsWith('UPDATE sessions') || !stored?.startsWith('UPDATE sessions'))
    throw new Error('migrations 5 and 6 (previous visits) are not what this expects');
  await c.run(visits);
  await c.run(stored);
  await c.run(
    `UPDATE events SET prev_view_at = p.prev_view_at
     FROM (
       SELECT site, id, ts,
         lag(visit_start) OVER (PARTITION BY site, visitor_key, kind, path ORDER BY visit_start) AS prev_view_at
       FROM events WHERE visit_first) p
     WHERE events.site = p.site AND events.id = p.id AND events.ts = p.ts`,
  );
  c.closeSync();
  instance.closeSync();
  // the visitor store (visitors.db) beside it is built from what is stored now, as a first start
  // after an upgrade builds it; copySynthetic takes both
  for (const name of ['visitors.db', 'visitors.db-wal', 'visitors.db-shm'])
    rmSync(join(dirname(path), name), { force: true });
  const built = await openAnalytics({
    walRoot: `${path}.nowal`,
    engine: { path, threads: 2, memoryLimit: '1GB' },
    logger: createLogger({ level: 'silent', name: 'synthetic' }),
  });
  await built.engine.applyBatch({ records: [] });
  await built.engine.close();
}

/** Copies synthetic data (the analytics database and its visitor store) to where `analyticsDb` goes. */
export function copySynthetic(template: string, analyticsDb: string): void {
  copyFileSync(template, analyticsDb);
  copyFileSync(join(dirname(template), 'visitors.db'), join(dirname(analyticsDb), 'visitors.db'));
}
