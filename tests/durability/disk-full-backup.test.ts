import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { type RunningFootfall, runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * A full disk in the middle of a backup, on a real file system: `data/backups` is a small tmpfs
 * (this test mounts it, as root; a machine that may not mount skips it, saying so). The backup
 * fails with the disk's own reason on the command line and in Health, leaves nothing half-written,
 * and changes nothing else: the service goes on loading and answering every report as before.
 * With room again, the next backup is written whole.
 */
const API = 'disk-full-backup-api-token-0123456789';
const END = Date.UTC(2026, 10, 20, 12);
const root = tempDir('ff-disk-full-');
const dataDir = join(root, 'data');
const backups = join(dataDir, 'backups');
const env = {
  FOOTFALL_DATA_DIR: dataDir,
  FOOTFALL_API_TOKEN: API,
  FOOTFALL_DRAIN_SECONDS: '3',
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
  FOOTFALL_GEO: 'off',
};

/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN); tried on a scratch folder. */
function canMount(): boolean {
  const probe = join(root, 'probe');
  mkdirSync(probe, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('disk-full-backup: skipped: this machine does not let the test mount a tmpfs');
    return false;
  }
}
const mountable = canMount();
let mounted = false;
let running: (RunningFootfall & { url: string }) | undefined;
let site = '';

afterAll(async () => {
  await running?.stop();
  if (mounted) execFileSync('umount', [backups]);
});

const get = async (path: string) => {
  const res = await fetch(`${running!.url}/api/v1${path}`, { headers: { authorization: `Bearer ${API}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
const READS = [
  '/report?from=2026-09-22&to=2026-11-20&daily=1',
  '/report/breakdown?from=2026-09-22&to=2026-11-20&dim=pages',
];
const answers = () => Promise.all(READS.map((r) => get(`/sites/${site}${r}`)));
const backupNow = async () => {
  const run = runFootfall(['backup', 'now'], env);
  const { code } = await run.exited;
  return { code, output: run.output() };
};

beforeAll(async () => {
  if (!mountable) return;
  site = (await writeDemoData({ dataDir, events: 20_000, days: 60, endMs: END, domain: 'shop.example' }))
    .siteId;
}, 60_000);

describe.skipIf(!mountable)('a full disk during a backup', () => {
  it('fails the backup with the reason, leaves nothing half-written, and changes nothing else', async () => {
    running = await startFootfall(env);
    await expect
      .poll(async () => (await get(`/sites/${site}/status`))['loading_events'], { timeout: 60_000 })
      .toBe(0);
    const before = await answers();
    // room for the staged copies of the databases, not for the sealed file as well: the disk
    // fills while the backup is being written
    const staged = statSync(join(dataDir, 'analytics.duckdb')).size + statSync(join(dataDir, 'app.db')).size;
    mkdirSync(backups, { recursive: true });
    // first not even room for the copy of app.db: SQLite's own "full" is said the same way
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k,mode=700', 'tmpfs', backups]);
    mounted = true;
    const tiny = await backupNow();
    expect(tiny.code).toBe(1);
    expect(tiny.output).toMatch(/the disk is full \(SQLITE_FULL\)/);
    const room = Math.ceil((staged * 1.4 + 1_000_000) / 4096) * 4096;
    execFileSync('mount', ['-o', `remount,size=${room}`, backups]);

    const full = await backupNow();
    expect(full.code).toBe(1);
    expect(full.output).toMatch(/the disk is full \(ENOSPC\)/);
    // nothing half-written: only the backups' own state (which says it failed)
    expect(readdirSync(backups)).toEqual(['state.json']);
    const health = await get('/health');
    expect(health['backups']).toMatchObject({ failing: true, last_success: null });
    expect(JSON.stringify((health['backups'] as { last_failure: unknown }).last_failure)).toMatch(
      /the disk is full \(ENOSPC\)/,
    );
    // the service goes on: events sent now are loaded, and the reports are as before
    const sent = await fetch(`${running.url}/api/e`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      },
      body: JSON.stringify({ k: 'pv', u: 'https://shop.example/after-the-full-disk', s: site }),
    });
    expect(sent.status).toBe(202);
    await expect
      .poll(
        async () =>
          ((await get(`/sites/${site}/events?limit=5`))['events'] as { path: string }[]).map((e) => e.path),
        {
          timeout: 30_000,
        },
      )
      .toContain('/after-the-full-disk');
    expect(await answers()).toEqual(before);

    // with room again, the next backup is whole
    execFileSync('mount', ['-o', 'remount,size=512m', backups]);
    const whole = await backupNow();
    expect(whole.code, whole.output).toBe(0);
    expect(readdirSync(backups).filter((n) => n.endsWith('.ffbackup'))).toHaveLength(1);
    expect(readdirSync(backups).filter((n) => n.startsWith('.staging-') || n.endsWith('.tmp'))).toEqual([]);
    expect((await get('/health'))['backups']).toMatchObject({ failing: false });
  }, 180_000);
});
