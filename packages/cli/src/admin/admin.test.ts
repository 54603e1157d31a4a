import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import {
  beginTwoStepSetup,
  createCipher,
  createPerson,
  createSession,
  findPersonByEmail,
  isSetupDoneAt,
  openControlDb,
  verifyPassword,
  writeAnalyticsBeforeUpgrade,
  writeBeforeUpgrade,
} from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from './admin.ts';

let root: string;
let config: ReturnType<typeof loadConfig>;
let out: string[];
let err: string[];
const io = { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) };
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ff-admin-'));
  config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
  out = [];
  err = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const open = () => {
  const instance = prepareInstance(config);
  return openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
};
const printedPassword = () => /: (\S+)$/m.exec(out.join('\n'))![1]!;

describe('footfall admin', () => {
  it('add-user creates a person whose generated password must be replaced', async () => {
    expect(await runAdmin(['add-user', 'Ann@Example.com', '--role', 'owner'], config, io)).toBe(0);
    const ctl = open();
    const person = await findPersonByEmail(ctl, 'ann@example.com');
    expect(person).toMatchObject({ role: 'owner', must_change_password: 1 });
    expect(await verifyPassword(printedPassword(), person!.password_hash)).toBe(true);
    await ctl.close();
    expect(await runAdmin(['add-user', 'ann@example.com'], config, io)).toBe(1);
    expect(err.join('\n')).toMatch(/already has an account/);
  });

  it('reset-password sets a generated password to replace, and signs the person out', async () => {
    const ctl = open();
    const p = await createPerson(ctl, {
      email: 'b@example.com',
      password: 'old password 123',
      role: 'viewer',
    });
    await createSession(ctl, p.id);
    await ctl.close();
    expect(await runAdmin(['reset-password', 'b@example.com'], config, io)).toBe(0);
    const after = open();
    const row = await findPersonByEmail(after, 'b@example.com');
    expect(row!.must_change_password).toBe(1);
    expect(await verifyPassword(printedPassword(), row!.password_hash)).toBe(true);
    expect(after.raw.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
    await after.close();
  });

  it('disable-2fa turns two-step off so the person can set it up again', async () => {
    const ctl = open();
    const p = await createPerson(ctl, { email: 'c@example.com', password: 'password 12345', role: 'owner' });
    ctl.raw
      .prepare('UPDATE people SET totp_secret = ? WHERE id = ?')
      .run(ctl.cipher.sealText('JBSWY3DPEHPK3PXP', 'two-step'), p.id);
    await beginTwoStepSetup(ctl, p.id, 'c');
    await ctl.close();
    expect(await runAdmin(['disable-2fa', 'c@example.com'], config, io)).toBe(0);
    const after = open();
    expect((await findPersonByEmail(after, 'c@example.com'))!.totp_secret).toBeNull();
    expect(after.raw.prepare('SELECT count(*) AS n FROM two_step_setups').get()).toEqual({ n: 0 });
    await after.close();
    expect(await runAdmin(['disable-2fa', 'nobody@example.com'], config, io)).toBe(1);
  });

  it('open-backup writes the database sealed in either kind of before-upgrade copy to a new file', async () => {
    const instance = prepareInstance(config);
    const dir = join(root, 'copies');
    const cipher = createCipher(instance.secret);
    const appImage = Buffer.from('SQLite format 3\0 and the rest of app.db');
    const app = writeBeforeUpgrade(dir, '0.1.0', appImage, cipher);
    const dbFile = join(root, 'analytics.duckdb');
    writeFileSync(dbFile, Buffer.alloc(3 * 1024 * 1024, 7));
    const analytics = writeAnalyticsBeforeUpgrade(dir, 1, dbFile, cipher);

    expect(await runAdmin(['open-backup', app, join(root, 'app.db')], config, io)).toBe(0);
    expect(readFileSync(join(root, 'app.db')).equals(appImage)).toBe(true);
    expect(await runAdmin(['open-backup', analytics, join(root, 'restored.duckdb')], config, io)).toBe(0);
    expect(readFileSync(join(root, 'restored.duckdb')).equals(readFileSync(dbFile))).toBe(true);

    // never over an existing file, never with another instance key, and a clear usage error
    expect(await runAdmin(['open-backup', app, join(root, 'app.db')], config, io)).toBe(1);
    expect(err.at(-1)).toMatch(/exists; name a new file/);
    const other = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'other') });
    expect(await runAdmin(['open-backup', analytics, join(root, 'x.duckdb')], other, io)).toBe(1);
    expect(err.at(-1)).toMatch(/cannot open .*another instance key/);
    expect(existsSync(join(root, 'x.duckdb'))).toBe(false);
    expect(await runAdmin(['open-backup', app], config, io)).toBe(2);
  });

  it('answers a usage error with exit code 2', async () => {
    expect(await runAdmin(['frobnicate', 'x@example.com'], config, io)).toBe(2);
    expect(await runAdmin(['add-user'], config, io)).toBe(2);
  });
});

describe('isSetupDoneAt', () => {
  it('is false without a database or an owner, true once an owner exists', async () => {
    const { controlDb } = prepareInstance(config).paths;
    expect(isSetupDoneAt(controlDb)).toBe(false);
    const ctl = open();
    await createPerson(ctl, { email: 'v@example.com', password: 'password 12345', role: 'viewer' });
    expect(isSetupDoneAt(controlDb)).toBe(false);
    await createPerson(ctl, { email: 'o@example.com', password: 'password 12345', role: 'owner' });
    expect(isSetupDoneAt(controlDb)).toBe(true);
    await ctl.close();
  });
});
