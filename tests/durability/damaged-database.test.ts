import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * A damaged analytics.duckdb (cut short, as a full disk or a bad copy leaves it), with the real
 * `footfall start`: the query service does not open it and touches nothing, says why and how to
 * restore (the log and Health, naming the file and the newest backup), the gateway keeps taking
 * events into the write-ahead log, and reports answer 503 instead of a crash loop. A file damaged
 * inside (a block's checksum wrong) opens, since DuckDB checks a block only when it reads it: the
 * service stops at that first read the same way (engine/damage.ts).
 */
const API = 'damaged-api-token-0123456789abcdef';
const OPERATOR = 'damaged-operator-token-0123456789';
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const dataDir = join(tempDir('ff-damaged-'), 'data');
const env = {
  FOOTFALL_DATA_DIR: dataDir,
  FOOTFALL_SITES: 'example.com',
  FOOTFALL_API_TOKEN: API,
  FOOTFALL_OPERATOR_TOKEN: OPERATOR,
  FOOTFALL_DRAIN_SECONDS: '3',
};
let running: Awaited<ReturnType<typeof startFootfall>> | undefined;
afterAll(() => running?.stop());

const api = (path: string) =>
  fetch(`${running!.url}/api/v1${path}`, { headers: { authorization: `Bearer ${API}` } });
const pageview = (site: string, visitor: string) =>
  fetch(`${running!.url}/api/e`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': BROWSER },
    body: JSON.stringify({ s: site, k: 'pv', u: 'http://example.com/pricing', v: visitor }),
  });
const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Footfall on `e`'s data directory stores three pageviews and a backup, then stops; the site. */
async function storedAndBackedUp(e: Record<string, string>): Promise<string> {
  running = await startFootfall(e);
  const sites = (await (await api('/sites')).json()) as { sites: { id: string }[] };
  const site = sites.sites[0]!.id;
  for (const v of ['visitor-0001', 'visitor-0002', 'visitor-0003'])
    expect((await pageview(site, v)).status).toBe(202);
  await expect
    .poll(
      async () =>
        ((await (await api(`/sites/${site}/report`)).json()) as { kpis: { pageviews: number } }).kpis
          .pageviews,
      { timeout: 20_000 },
    )
    .toBe(3);
  expect((await runFootfall(['backup', 'now'], e).exited).code).toBe(0);
  await running.stop();
  return site;
}

/** The operator's Health. */
async function operatorHealth() {
  const res = await fetch(`${running!.url}/_footfall/health`, {
    headers: { authorization: `Bearer ${OPERATOR}` },
  });
  return (await res.json()) as { status: string; engine: { ready: boolean; waiting: string | null } };
}

describe('a damaged analytics database', () => {
  it('is not opened or changed: Health names the file and the restore command, events wait in the log', async () => {
    const site = await storedAndBackedUp(env);

    const db = join(dataDir, 'analytics.duckdb');
    truncateSync(db, Math.floor(statSync(db).size / 2));
    const before = hash(db);
    const store = join(dataDir, 'visitors.db');
    const storeBefore = existsSync(store) ? hash(store) : null;
    const newest = readdirSync(join(dataDir, 'backups'))
      .filter((n) => n.endsWith('.ffbackup'))
      .sort()
      .at(-1)!;

    running = await startFootfall(env);
    const logged = await running.waitForLog(
      (l) => typeof l.msg === 'string' && l.msg.includes('cannot be read'),
    );
    expect(logged.msg).toContain(db);
    const health = await operatorHealth();
    expect(health.status).toBe('degraded');
    expect(health.engine.ready).toBe(false);
    expect(health.engine.waiting).toContain(db);
    expect(health.engine.waiting).toContain(`footfall backup restore ${join(dataDir, 'backups', newest)}`);
    // the gateway keeps every event for later; reports say the engine is not there
    expect((await pageview(site, 'visitor-0004')).status).toBe(202);
    const report = await api(`/sites/${site}/report`);
    expect(report.status).toBe(503);
    expect(await report.json()).toMatchObject({ code: 'unavailable' });
    // no crash loop: the query service started once
    expect(running.logs().filter((l) => l.msg === 'child exited; restarting')).toEqual([]);
    await running.stop();
    running = undefined;
    expect(hash(db)).toBe(before);
    expect(existsSync(store) ? hash(store) : null).toBe(storeBefore);
  }, 120_000);

  it('damaged inside, stops at the first read of a damaged block and writes nothing more', async () => {
    const dir = join(tempDir('ff-damaged-inside-'), 'data');
    const inside = { ...env, FOOTFALL_DATA_DIR: dir };
    const site = await storedAndBackedUp(inside);

    // the blocks that hold the stored visits, each overwritten after its checksum
    const db = join(dir, 'analytics.duckdb');
    const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    const blocks = (
      await connection.runAndReadAll(
        "SELECT DISTINCT block_id FROM pragma_storage_info('sessions') WHERE block_id IS NOT NULL AND block_id >= 0",
      )
    )
      .getRows()
      .map(([b]) => Number(b));
    const size = Number(
      (await connection.runAndReadAll("SELECT current_setting('default_block_size')")).getRows()[0]![0],
    );
    connection.closeSync();
    instance.closeSync();
    expect(blocks.length).toBeGreaterThan(0);
    const fd = openSync(db, 'r+');
    // three 4 KiB headers, then the blocks
    for (const block of blocks) writeSync(fd, randomBytes(2048), 0, 2048, 3 * 4096 + block * size + 64);
    closeSync(fd);

    running = await startFootfall(inside);
    // a report of the visits reads the damaged blocks
    const report = await api(`/sites/${site}/report?f=${encodeURIComponent('page:/pricing')}`);
    expect(report.status).toBe(503);
    expect(await report.json()).toMatchObject({ code: 'unavailable' });
    const health = await operatorHealth();
    expect(health.status).toBe('degraded');
    expect(health.engine.ready).toBe(false);
    expect(health.engine.waiting).toContain(db);
    expect(health.engine.waiting).toContain('Corrupt database file');
    expect(health.engine.waiting).toContain('footfall backup restore');
    expect(running.logs().some((l) => typeof l.msg === 'string' && l.msg.includes('cannot be read'))).toBe(
      true,
    );
    // from then on nothing is written to the file; events wait in the write-ahead log
    const at = hash(db);
    expect((await pageview(site, 'visitor-0004')).status).toBe(202);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api(`/sites/${site}/report`)).status).toBe(503);
    expect(running.logs().filter((l) => l.msg === 'child exited; restarting')).toEqual([]);
    await running.stop();
    running = undefined;
    expect(hash(db)).toBe(at);
  }, 120_000);
});
