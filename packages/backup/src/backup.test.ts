import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createCipher, openControlDb } from '@footfall/control';
import { dataPaths } from '@footfall/instance';
import { openWalReader, openWalWriter } from '@footfall/wal';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BackupOpenError, readManifest } from './archive.ts';
import { copyAnalyticsOffline, copyControl } from './capture.ts';
import { type BackupSources, backupName, createBackup, localBackups, pruneLocal } from './create.ts';
import { NotEmptyError, restoreBackup } from './restore.ts';

const SECRET = 'backup-test-instance-key-0123456789';
const cipher = createCipher(SECRET);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'ff-backup-'));
  dirs.push(d);
  return d;
};

/**
 * A data directory as a stopped instance leaves it: app.db with a site, analytics.duckdb that has
 * applied the first 3 of 5 WAL records of stream `gw1`, and a quarantined record.
 */
async function instance() {
  const paths = dataPaths(join(temp(), 'data'));
  mkdirSync(paths.root, { recursive: true });
  const ctl = openControlDb({ path: paths.controlDb, secret: SECRET, version: '0.5.5' });
  ctl.raw
    .prepare(
      `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at) VALUES ('s1', 'example.com', 'UTC', 'EUR', 'k', 0)`,
    )
    .run();
  await ctl.close();
  const duck = await DuckDBInstance.create(paths.analyticsDb);
  const c = await duck.connect();
  await c.run('CREATE TABLE schema_version (version INTEGER)');
  await c.run('INSERT INTO schema_version VALUES (1), (2)');
  await c.run('CREATE TABLE stream_positions (stream VARCHAR, seq UBIGINT)');
  await c.run(`INSERT INTO stream_positions VALUES ('gw1', 3)`);
  await c.run('CREATE TABLE events AS SELECT range AS n FROM range(100000)');
  c.closeSync();
  duck.closeSync();
  // small segments, so the applied ones are left out of the backup
  const wal = await openWalWriter({ dir: join(paths.wal, 'gw1'), segmentBytes: 4096 });
  for (let i = 1; i <= 5; i++) await wal.append(`record ${i} ${'x'.repeat(1500)}`);
  await wal.close();
  mkdirSync(paths.quarantine, { recursive: true });
  writeFileSync(join(paths.quarantine, 'gw1-7.json'), '{"kept":true}');
  return paths;
}

const offline = (paths: ReturnType<typeof dataPaths>): BackupSources => ({
  control: (target) => copyControl(paths.controlDb, target),
  analytics: (target, during) => copyAnalyticsOffline(paths.analyticsDb, target, during),
});

const backup = (paths: ReturnType<typeof dataPaths>, version = '0.5.5') =>
  createBackup({
    paths,
    cipher,
    version,
    reason: 'manual',
    sources: offline(paths),
    settings: ['FOOTFALL_GEO=country'],
  });

const walRecords = async (dir: string, after: bigint) => {
  const reader = openWalReader({ dir });
  try {
    return (await reader.read({ after, maxRecords: 100 })).map((r) => [
      r.seq,
      new TextDecoder().decode(r.payload).slice(0, 8),
    ]);
  } finally {
    await reader.close();
  }
};

describe('a backup', () => {
  it('restores into an empty directory as the instance was: both databases, the log not yet applied, quarantine', async () => {
    const paths = await instance();
    const made = await backup(paths);
    expect(made.file).toMatch(/backups\/footfall-\d{8}T\d{6}Z-v0\.5\.5\.ffbackup$/);
    expect(made.manifest).toMatchObject({ footfall_version: '0.5.5', reason: 'manual', analytics_schema: 2 });
    expect(readdirSync(paths.backups).filter((n) => n.startsWith('.staging'))).toEqual([]);
    // sealed: none of the data is readable in the file
    expect(readFileSync(made.file).includes(Buffer.from('example.com'))).toBe(false);
    const manifest = await readManifest(made.file, cipher);
    const names = manifest.files.map((f) => f.name);
    expect(names).toContain('app.db');
    expect(names).toContain('analytics.duckdb');
    expect(names).toContain('wal/gw1/durable-seq');
    expect(names).toContain('quarantine/gw1-7.json');

    const to = dataPaths(join(temp(), 'restored'));
    await restoreBackup({ file: made.file, dataDir: to.root, cipher, version: '0.5.5' });
    const db = new Database(to.controlDb, { readonly: true });
    expect(db.prepare('SELECT id, domain, currency FROM sites').all()).toEqual([
      { id: 's1', domain: 'example.com', currency: 'EUR' },
    ]);
    db.close();
    const duck = await DuckDBInstance.create(to.analyticsDb);
    const c = await duck.connect();
    const rows = (
      await c.runAndReadAll(
        'SELECT count(*)::INT AS n, (SELECT seq::INT FROM stream_positions) AS at FROM events',
      )
    ).getRowObjectsJS();
    expect(rows).toEqual([{ n: 100000, at: 3 }]);
    c.closeSync();
    duck.closeSync();
    // the records past the copy's position are there to load
    expect(await walRecords(join(to.wal, 'gw1'), 3n)).toEqual([
      [4n, 'record 4'],
      [5n, 'record 5'],
    ]);
    expect(readFileSync(join(to.quarantine, 'gw1-7.json'), 'utf8')).toBe('{"kept":true}');
    expect(readFileSync(join(to.backups, 'restored-settings.txt'), 'utf8')).toContain('FOOTFALL_GEO=country');
    // segments wholly applied before the copy are not carried
    const carried = names.filter((n) => n.endsWith('.seg')).length;
    expect(carried).toBeLessThan(
      readdirSync(join(paths.wal, 'gw1')).filter((n) => n.endsWith('.seg')).length,
    );
  });

  it('refuses another key, a changed byte, a newer version and a directory that holds data, and leaves it as it was', async () => {
    const paths = await instance();
    const made = await backup(paths, '0.9.0');
    const to = join(temp(), 'restored');
    mkdirSync(to);
    writeFileSync(join(to, 'secret.key'), 'the key someone put there\n');
    const other = await restoreBackup({
      file: made.file,
      dataDir: to,
      cipher: createCipher('another-key-0123456789'),
      version: '0.9.0',
    }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(BackupOpenError);
    expect((other as BackupOpenError).reason).toBe('other-key');
    expect((other as Error).message).toMatch(/FOOTFALL_SECRET/);
    const newer = await restoreBackup({ file: made.file, dataDir: to, cipher, version: '0.5.5' }).catch(
      (e: unknown) => e,
    );
    expect((newer as BackupOpenError).reason).toBe('newer');
    const bytes = readFileSync(made.file);
    bytes[bytes.length - 40] = (bytes[bytes.length - 40] ?? 0) ^ 1;
    const changed = join(temp(), 'changed.ffbackup');
    writeFileSync(changed, bytes);
    const damaged = await restoreBackup({ file: changed, dataDir: to, cipher, version: '0.9.0' }).catch(
      (e: unknown) => e,
    );
    expect((damaged as BackupOpenError).reason).toBe('damaged');
    expect(readdirSync(to)).toEqual(['secret.key']);
    await restoreBackup({ file: made.file, dataDir: to, cipher, version: '0.9.0' });
    const again = await restoreBackup({ file: made.file, dataDir: to, cipher, version: '0.9.0' }).catch(
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(NotEmptyError);
  });

  it('keeps the newest local backups and removes what a dead process left half-written', async () => {
    const dir = temp();
    const day = Date.UTC(2026, 10, 1);
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, backupName(day + i * 86_400_000, '0.5.5')), 'x');
    mkdirSync(join(dir, '.staging-999999999-1'));
    writeFileSync(join(dir, `${backupName(day, '0.5.5')}.999999999.tmp`), 'half');
    writeFileSync(join(dir, 'state.json'), '{}');
    expect(pruneLocal(dir, 3)).toHaveLength(2);
    expect(localBackups(dir).map((b) => b.name)).toEqual([
      backupName(day + 4 * 86_400_000, '0.5.5'),
      backupName(day + 3 * 86_400_000, '0.5.5'),
      backupName(day + 2 * 86_400_000, '0.5.5'),
    ]);
    expect(readdirSync(dir).sort()).toEqual([...localBackups(dir).map((b) => b.name), 'state.json'].sort());
    expect(existsSync(join(dir, '.staging-999999999-1'))).toBe(false);
  });
});
