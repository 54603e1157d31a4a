import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { readBeforeUpgrade } from './before-upgrade.ts';
import { CONTROL_MIGRATIONS, type ControlMigration } from './migrations.ts';
import {
  BeforeUpgradeError,
  compareVersions,
  controlUpgradeFrom,
  NewerDatabaseError,
  openControlDb,
  waitForControlUpgrade,
} from './open.ts';
import { TEST_SECRET } from './test-support.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ff-open-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A next migration, as a later release would bring. */
const NEXT: ControlMigration = {
  version: CONTROL_MIGRATIONS.length + 1,
  name: 'test column',
  sql: 'ALTER TABLE sites ADD COLUMN note TEXT;',
};
const open = (dir: string, version: string, migrations = CONTROL_MIGRATIONS) =>
  openControlDb({ path: join(dir, 'app.db'), secret: TEST_SECRET, version, migrations });

/** Every table's rows, to compare a database before and after. */
function dump(path: string): string {
  const raw = new Database(path, { readonly: true });
  try {
    const tables = raw.prepare(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`).all() as {
      name: string;
    }[];
    const out: Record<string, unknown> = { user_version: raw.pragma('user_version', { simple: true }) };
    for (const { name } of tables) out[name] = raw.prepare(`SELECT * FROM "${name}"`).all();
    return JSON.stringify(out);
  } finally {
    raw.close();
  }
}

describe('opening the control database', () => {
  it('creates it in WAL mode, readable by the service user only, with the tables others rely on', async () => {
    const dir = tempDir();
    const ctl = open(dir, '0.1.0');
    expect(statSync(join(dir, 'app.db')).mode & 0o777).toBe(0o600);
    expect(ctl.raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const cols = (t: string) =>
      (ctl.raw.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
    expect(cols('daily_salts')).toEqual(['day', 'salt']);
    expect(cols('sites')).toEqual(
      expect.arrayContaining([
        'id',
        'domain',
        'timezone',
        'currency',
        'cookieless',
        'proxy_key',
        'city_recording',
        'icon',
        'colour',
        'created_at',
      ]),
    );
    await ctl.close();
  });

  it('refuses a database written by a newer schema and says which version to run', async () => {
    const dir = tempDir();
    await open(dir, '0.2.0', [...CONTROL_MIGRATIONS, NEXT]).close();
    expect(() => open(dir, '0.1.0')).toThrow(NewerDatabaseError);
    expect(() => open(dir, '0.1.0')).toThrow(/written by Footfall 0\.2\.0.*only run forwards/);
  });

  it('refuses a database last opened by a newer release even when the schema is the same', async () => {
    const dir = tempDir();
    await open(dir, '0.3.1').close();
    expect(() => open(dir, '0.3.0')).toThrow(NewerDatabaseError);
  });

  it('writes a sealed before-upgrade copy, named for the old version, that the instance key opens', async () => {
    const dir = tempDir();
    const old = open(dir, '0.1.0');
    old.raw.prepare(`INSERT INTO meta (key, value) VALUES ('marker', 'before')`).run();
    await old.close();

    const upgraded = open(dir, '0.2.0', [...CONTROL_MIGRATIONS, NEXT]);
    expect(upgraded.raw.pragma('user_version', { simple: true })).toBe(NEXT.version);
    await upgraded.close();

    const copies = readdirSync(join(dir, 'backups', 'before-upgrade'));
    expect(copies).toEqual(['app-0.1.0.db.sealed']);
    const file = join(dir, 'backups', 'before-upgrade', copies[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const image = readBeforeUpgrade(file, TEST_SECRET);
    const copy = new Database(image);
    expect(copy.prepare(`SELECT value FROM meta WHERE key = 'marker'`).get()).toEqual({ value: 'before' });
    expect(copy.pragma('user_version', { simple: true })).toBe(CONTROL_MIGRATIONS.length);
    copy.close();
    expect(() => readBeforeUpgrade(file, 'another-instance-secret-xyz')).toThrow(/another instance key/);
  });

  it('replaces the previous before-upgrade copy at the next upgrade', async () => {
    const dir = tempDir();
    await open(dir, '0.1.0').close();
    await open(dir, '0.1.1').close();
    await open(dir, '0.2.0', [...CONTROL_MIGRATIONS, NEXT]).close();
    expect(readdirSync(join(dir, 'backups', 'before-upgrade'))).toEqual(['app-0.1.1.db.sealed']);
  });

  it('changes nothing and refuses to start when the before-upgrade copy cannot be written', async () => {
    const dir = tempDir();
    await open(dir, '0.1.0').close();
    const before = dump(join(dir, 'app.db'));
    mkdirSync(join(dir, 'backups'));
    writeFileSync(join(dir, 'backups', 'before-upgrade'), 'a file where the directory should be');
    expect(() => open(dir, '0.2.0', [...CONTROL_MIGRATIONS, NEXT])).toThrow(BeforeUpgradeError);
    expect(dump(join(dir, 'app.db'))).toBe(before);
  });

  it('does not copy or change anything when the version is unchanged', async () => {
    const dir = tempDir();
    await open(dir, '0.1.0').close();
    await open(dir, '0.1.0').close();
    expect(() => readdirSync(join(dir, 'backups'))).toThrow();
  });

  it('tells, without changing it, which version a database would be upgraded from', async () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    expect(controlUpgradeFrom(path, '0.2.0')).toBeNull(); // none yet: nothing to upgrade
    await open(dir, '0.1.0').close();
    const before = dump(path);
    expect(controlUpgradeFrom(path, '0.1.0')).toBeNull();
    expect(controlUpgradeFrom(path, '0.2.0')).toBe('0.1.0');
    expect(controlUpgradeFrom(path, '0.1.1', [...CONTROL_MIGRATIONS, NEXT])).toBe('0.1.0');
    expect(controlUpgradeFrom(path, '0.0.9')).toBeNull(); // newer: openControlDb refuses it
    expect(dump(path)).toBe(before);
  });

  it('lets a gateway wait while the query service upgrades, and stop waiting when told', async () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    await open(dir, '0.1.0').close();
    let waited = false;
    const waiting = waitForControlUpgrade(path, '0.2.0', {
      intervalMs: 10,
      onWaiting: () => (waited = true),
    });
    await new Promise((r) => setTimeout(r, 50));
    await open(dir, '0.2.0', CONTROL_MIGRATIONS).close();
    await waiting;
    expect(waited).toBe(true);
    const stop = new AbortController();
    const stopped = waitForControlUpgrade(path, '0.3.0', { intervalMs: 10, signal: stop.signal });
    stop.abort(new Error('stopping'));
    await expect(stopped).rejects.toThrow('stopping');
  });

  it('opens one fresh database from several connections and migrates it once', async () => {
    const dir = tempDir();
    const all = Array.from({ length: 4 }, () => open(dir, '0.1.0'));
    for (const c of all)
      expect(c.raw.pragma('user_version', { simple: true })).toBe(CONTROL_MIGRATIONS.length);
    await Promise.all(all.map((c) => c.close()));
  });
});

describe('migration 2', () => {
  it('drops the leading www. of stored domains, unless the bare domain has a site of its own', async () => {
    const dir = tempDir();
    const old = open(dir, '0.1.0', CONTROL_MIGRATIONS.slice(0, 1));
    const insert = old.raw.prepare(
      `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at) VALUES (?, ?, 'UTC', 'USD', 'k', 0)`,
    );
    for (const [id, domain] of [
      ['s1', 'www.a.com'],
      ['s2', 'www.b.com'],
      ['s3', 'b.com'],
      ['s4', 'www.com'],
    ]) {
      insert.run(id, domain);
    }
    await old.close();
    const upgraded = open(dir, '0.2.0');
    const domains = upgraded.raw.prepare('SELECT id, domain FROM sites ORDER BY id').all();
    expect(domains).toEqual([
      { id: 's1', domain: 'a.com' },
      { id: 's2', domain: 'www.b.com' },
      { id: 's3', domain: 'b.com' },
      { id: 's4', domain: 'www.com' },
    ]);
    await upgraded.close();
  });
});

describe('migration 3', () => {
  it('gives stored sites the consent bar switched off, with default text and colours', async () => {
    const dir = tempDir();
    const old = open(dir, '0.1.0', CONTROL_MIGRATIONS.slice(0, 2));
    old.raw
      .prepare(
        `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at) VALUES ('s1', 'a.com', 'UTC', 'USD', 'k', 0)`,
      )
      .run();
    await old.close();
    const upgraded = open(dir, '0.2.0');
    expect(
      upgraded.raw
        .prepare('SELECT consent_bar, consent_text, consent_background, consent_foreground FROM sites')
        .all(),
    ).toEqual([{ consent_bar: 0, consent_text: null, consent_background: null, consent_foreground: null }]);
    await upgraded.close();
  });
});

describe('compareVersions', () => {
  it('orders releases numerically and a pre-release before its release', () => {
    expect(compareVersions('0.10.0', '0.9.9')).toBe(1);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareVersions('0.1.0', '0.1.0')).toBe(0);
  });
});
