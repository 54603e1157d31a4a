import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { type RunningFootfall, runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * `kill -9` of the query service in the middle of its own background work, with the real
 * `footfall start` (which restarts it): while it builds the day rollups of a site's history, while
 * it writes a backup, and while it writes the backup before an upgrade. After each restart every
 * report equals an uninterrupted run's, the work is done again, and what the killed run left
 * half-written is removed.
 */
const API = 'killed-background-api-token-0123456789';
const METRICS = 'killed-background-metrics-token-0123456789';
const DAYS = 200;
const END = Date.UTC(2026, 10, 20, 12);
const FROM = new Date(END - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
const TO = new Date(END).toISOString().slice(0, 10);
const REPORTS = [
  `/report?from=${FROM}&to=${TO}`,
  `/report?from=${FROM}&to=${TO}&deep=1`,
  `/report?from=${FROM}&to=${TO}&f=channel:Search`,
  `/report/breakdown?dim=pages&from=${FROM}&to=${TO}`,
  `/report?from=${TO}&to=${TO}&bucket=hour`,
];

const root = tempDir('ff-killed-');
const seed = join(root, 'seed');
let site = '';
const env = (dataDir: string) => ({
  FOOTFALL_DATA_DIR: dataDir,
  FOOTFALL_API_TOKEN: API,
  FOOTFALL_METRICS_TOKEN: METRICS,
  FOOTFALL_DRAIN_SECONDS: '5',
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
  FOOTFALL_GEO: 'off',
});
let running: (RunningFootfall & { url: string }) | undefined;
afterAll(() => running?.stop());

const get = async (path: string) => {
  const res = await fetch(`${running!.url}/api/v1${path}`, { headers: { authorization: `Bearer ${API}` } });
  expect(res.status, path).toBe(200);
  return res.json();
};
const answers = () => Promise.all(REPORTS.map((p) => get(`/sites/${site}${p}`)));
/** a query-service metric (without labels' detail), or NaN while it cannot be read */
const metric = async (name: string) => {
  const res = await fetch(`${running!.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
  if (res.status !== 200) return Number.NaN;
  const line = (await res.text())
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.split(' ').at(-1)) : Number.NaN;
};
/** resolves once the `nth` preparation (the tailer caught up) has built every past day's rollup */
const prepared = async (ff: RunningFootfall, nth: number) => {
  await expect
    .poll(() => ff.logs().filter((l) => l.msg === 'preparing reports of past days').length, {
      timeout: 90_000,
    })
    .toBe(nth);
  await expect.poll(() => metric('footfall_rollups_queued'), { timeout: 90_000, interval: 200 }).toBe(0);
};
const queryPid = (ff: RunningFootfall) =>
  ff
    .logs()
    .filter((l) => l.msg === 'child started' && l.child === 'query')
    .at(-1)?.pid as number;
const restarts = (ff: RunningFootfall) => ff.logs().filter((l) => l.msg === 'query service listening').length;

beforeAll(async () => {
  site = (
    await writeDemoData({ dataDir: seed, events: 60_000, days: DAYS, endMs: END, domain: 'shop.example' })
  ).siteId;
}, 120_000);

describe('the query service killed in its background work', () => {
  let expected: unknown[];

  it('gives the reports of an uninterrupted run first', async () => {
    const dataDir = join(root, 'calm');
    cpSync(seed, dataDir, { recursive: true });
    running = await startFootfall(env(dataDir));
    await prepared(running, 1);
    expected = await answers();
    expect((expected[0] as { kpis: { pageviews: number } }).kpis.pageviews).toBeGreaterThan(20_000);
    await running.stop();
    running = undefined;
  }, 180_000);

  it('builds the day rollups again after a kill halfway, and every report is as uninterrupted', async () => {
    const dataDir = join(root, 'killed');
    cpSync(seed, dataDir, { recursive: true });
    running = await startFootfall(env(dataDir));
    await running.waitForLog((l) => l.msg === 'preparing reports of past days', 90_000);
    // halfway: some days built, some still queued
    await expect
      .poll(
        async () => {
          const [built, queued] = [
            await metric('footfall_rollups_built_total'),
            await metric('footfall_rollups_queued'),
          ];
          return built > 0 && queued > 0;
        },
        { timeout: 30_000, interval: 20 },
      )
      .toBe(true);
    process.kill(queryPid(running), 'SIGKILL');
    await expect.poll(() => restarts(running!), { timeout: 60_000 }).toBe(2);
    await prepared(running, 2);
    expect(await answers()).toEqual(expected);
  }, 240_000);

  it('writes the next backup after a kill halfway through one, and removes what the killed one left', async () => {
    const backups = join(running!.dataDir, 'backups');
    const backup = runFootfall(['backup', 'now'], env(running!.dataDir));
    // halfway: the databases being copied, or the sealed file being written
    await expect
      .poll(
        () => {
          try {
            return readdirSync(backups).some((n) => n.startsWith('.staging-') || n.endsWith('.tmp'));
          } catch {
            return false;
          }
        },
        { timeout: 30_000, interval: 5 },
      )
      .toBe(true);
    process.kill(queryPid(running!), 'SIGKILL');
    expect((await backup.exited).code).not.toBe(0);
    expect(readdirSync(backups).filter((n) => n.endsWith('.ffbackup'))).toEqual([]);
    await expect.poll(() => restarts(running!), { timeout: 60_000 }).toBe(3);
    expect(await answers()).toEqual(expected);
    const again = runFootfall(['backup', 'now'], env(running!.dataDir));
    expect((await again.exited).code).toBe(0);
    const left = readdirSync(backups);
    expect(left.filter((n) => n.endsWith('.ffbackup'))).toHaveLength(1);
    expect(left.filter((n) => n.startsWith('.staging-') || n.endsWith('.tmp'))).toEqual([]);
    expect(await answers()).toEqual(expected);
  }, 180_000);

  it('writes the before-upgrade backup again after a kill halfway through it, then upgrades; every report as uninterrupted', async () => {
    await running?.stop();
    running = undefined;
    const dataDir = join(root, 'upgrading');
    cpSync(seed, dataDir, { recursive: true });
    // app.db as an older release left it: the start backs everything up before it stamps it anew
    const control = new Database(join(dataDir, 'app.db'));
    control.prepare(`UPDATE meta SET value = '0.0.1' WHERE key = 'footfall_version'`).run();
    control.close();
    const before = join(dataDir, 'backups', 'before-upgrade');
    const ff = runFootfall(['start'], env(dataDir));
    running = { ...ff, url: '' };
    await expect
      .poll(
        () => {
          try {
            return readdirSync(before).some((n) => n.startsWith('.staging-') || n.endsWith('.tmp'));
          } catch {
            return false;
          }
        },
        { timeout: 60_000, interval: 5 },
      )
      .toBe(true);
    process.kill(queryPid(ff), 'SIGKILL');
    // restarted, it writes the backup whole, and only then starts: the gateway waited meanwhile
    const listening = await ff.waitForLog((l) => l.msg === 'ingest gateway listening', 90_000);
    running = { ...ff, url: `http://127.0.0.1:${listening.port as number}` };
    await expect.poll(() => restarts(ff), { timeout: 60_000 }).toBe(1);
    const backedUp = ff.logs().filter((l) => l.msg === 'everything backed up before the upgrade');
    expect(backedUp).toHaveLength(1);
    expect(readdirSync(before)).toEqual(['footfall-0.0.1.ffbackup']);
    const stamped = new Database(join(dataDir, 'app.db'), { readonly: true });
    const version = stamped.prepare(`SELECT value FROM meta WHERE key = 'footfall_version'`).get() as {
      value: string;
    };
    stamped.close();
    expect(version.value).toBe(readFileSync(new URL('../../VERSION', import.meta.url), 'utf8').trim());
    // the demo events reach the reports through the tailer, as in the uninterrupted run
    await prepared(ff, 1);
    expect(await answers()).toEqual(expected);
  }, 240_000);
});
