import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_MIGRATIONS } from './migrations.ts';
import { openControlDb } from './open.ts';
import { TEST_SECRET } from './test-support.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const OPEN = fileURLToPath(new URL('./open.ts', import.meta.url));
const MIGRATIONS = fileURLToPath(new URL('./migrations.ts', import.meta.url));

/** Opens the database in a separate node process, as the two services do. */
function openInProcess(script: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('opening from several processes at once', () => {
  it('upgrades an old database exactly once, with one before-upgrade copy, and every process opens it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ff-conc-'));
    dirs.push(dir);
    const path = join(dir, 'app.db');
    await openControlDb({ path, secret: TEST_SECRET, version: '0.1.0' }).close();
    const script = join(dir, 'open.mts');
    writeFileSync(
      script,
      `import { openControlDb } from ${JSON.stringify(OPEN)};
import { CONTROL_MIGRATIONS } from ${JSON.stringify(MIGRATIONS)};
const v2 = { version: CONTROL_MIGRATIONS.length + 1, name: 'counter', sql: "CREATE TABLE upgraded (n INTEGER); INSERT INTO upgraded VALUES (1);" };
const ctl = openControlDb({ path: ${JSON.stringify(path)}, secret: ${JSON.stringify(TEST_SECRET)}, version: '0.2.0', migrations: [...CONTROL_MIGRATIONS, v2] });
await ctl.close();
`,
    );
    const results = await Promise.all([openInProcess(script), openInProcess(script), openInProcess(script)]);
    for (const r of results) expect(r).toEqual({ code: 0, stderr: '' });
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM upgraded').get()).toEqual({ n: 1 });
    expect(raw.pragma('user_version', { simple: true })).toBe(CONTROL_MIGRATIONS.length + 1);
    raw.close();
    expect(readdirSync(join(dir, 'backups', 'before-upgrade'))).toEqual(['app-0.1.0.db.sealed']);
  });
});
