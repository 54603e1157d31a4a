import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * A damaged analytics.duckdb (cut short, as a full disk or a bad copy leaves it), with the real
 * `footfall start`: the query service does not open it and touches nothing, says why and how to
 * restore (the log and Health, naming the file and the newest backup), the gateway keeps taking
 * events into the write-ahead log, and reports answer 503 instead of a crash loop.
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

describe('a damaged analytics database', () => {
  it('is not opened or changed: Health names the file and the restore command, events wait in the log', async () => {
    running = await startFootfall(env);
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
    const backup = runFootfall(['backup', 'now'], env);
    expect((await backup.exited).code).toBe(0);
    await running.stop();

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
    const health = (await (
      await fetch(`${running.url}/_footfall/health`, { headers: { authorization: `Bearer ${OPERATOR}` } })
    ).json()) as { status: string; engine: { ready: boolean; waiting: string | null } };
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
});
