import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlDb, openControlDb } from './open.ts';
import { createPerson } from './people.ts';
import { tempControlDb, testClock } from './test-support.ts';
import { beginTwoStepSetup, confirmTwoStepSetup, recoveryCodesLeft, verifyTwoStepCode } from './two-step.ts';

const codeAt = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), period: 30, digits: 6 }).generate({ timestamp: ms });

let env: ReturnType<typeof tempControlDb>;
let ctl: ControlDb;
const clock = testClock();
let personId: string;
beforeEach(async () => {
  clock.set(Date.UTC(2026, 0, 15, 12, 0, 0));
  env = tempControlDb({ clock });
  ctl = env.ctl;
  personId = (await createPerson(ctl, { email: 'a@example.com', password: 'correct horse', role: 'owner' }))
    .id;
});
afterEach(() => env.cleanup());

async function enable(): Promise<{ secret: string; codes: string[] }> {
  const setup = await beginTwoStepSetup(ctl, personId, 'a@example.com');
  const codes = await confirmTwoStepSetup(ctl, personId, codeAt(setup.secret, clock.now()));
  return { secret: setup.secret, codes };
}

describe('two-step sign-in codes', () => {
  it('stores the secret sealed with the instance key, never in the clear', async () => {
    const { secret } = await enable();
    const row = ctl.raw.prepare('SELECT totp_secret FROM people WHERE id = ?').get(personId) as {
      totp_secret: string;
    };
    expect(row.totp_secret.startsWith('v1.')).toBe(true);
    expect(row.totp_secret).not.toContain(secret);
    expect(ctl.cipher.openText(row.totp_secret, 'two-step')).toBe(secret);
  });

  it('accepts a code once and refuses the same code again', async () => {
    const { secret } = await enable();
    clock.advance(30_000);
    const code = codeAt(secret, clock.now());
    expect(await verifyTwoStepCode(ctl, personId, code)).toBe(true);
    expect(await verifyTwoStepCode(ctl, personId, code)).toBe(false);
  });

  it('refuses an older code still inside its 90-second window once a newer one was used', async () => {
    const { secret } = await enable();
    clock.advance(60_000);
    const older = codeAt(secret, clock.now());
    clock.advance(30_000);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(secret, clock.now()))).toBe(true);
    expect(await verifyTwoStepCode(ctl, personId, older)).toBe(false);
  });

  it('accepts a code from the previous step (the 90-second window) but not from two steps back', async () => {
    const { secret } = await enable();
    clock.advance(120_000);
    const stepStart = Math.floor(clock.now() / 30_000) * 30_000;
    expect(await verifyTwoStepCode(ctl, personId, codeAt(secret, stepStart - 60_000))).toBe(false);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(secret, stepStart - 30_000))).toBe(true);
  });

  it('refuses the code that confirmed the setup as a sign-in code', async () => {
    const setup = await beginTwoStepSetup(ctl, personId, 'a');
    const code = codeAt(setup.secret, clock.now());
    await confirmTwoStepSetup(ctl, personId, code);
    expect(await verifyTwoStepCode(ctl, personId, code)).toBe(false);
  });

  it('spends each recovery code once, in any case and with or without the dash', async () => {
    const { codes } = await enable();
    expect(codes).toHaveLength(10);
    expect(await verifyTwoStepCode(ctl, personId, codes[0]!.toUpperCase().replace('-', ''))).toBe(true);
    expect(await verifyTwoStepCode(ctl, personId, codes[0]!)).toBe(false);
    expect(await recoveryCodesLeft(ctl, personId)).toBe(9);
    const stored = ctl.raw.prepare('SELECT code_hash FROM recovery_codes').all() as { code_hash: string }[];
    expect(stored.some((r) => r.code_hash.includes(codes[1]!))).toBe(false);
  });

  it('lets a person in with a recovery code once the instance key changed (the authenticator cannot be read)', async () => {
    const { secret, codes } = await enable();
    const path = join(env.dir, 'app.db');
    await ctl.close();
    // the same database opened with another instance key, as after a lost FOOTFALL_SECRET
    ctl = openControlDb({
      path,
      secret: 'another-instance-secret-0123456789',
      version: '0.1.0',
      now: clock.now,
    });
    clock.advance(30_000);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(secret, clock.now()))).toBe(false);
    expect(await verifyTwoStepCode(ctl, personId, codes[3]!)).toBe(true);
    expect(await recoveryCodesLeft(ctl, personId)).toBe(9);
    await ctl.close();
  });

  it('lets a setup expire after 10 minutes', async () => {
    const setup = await beginTwoStepSetup(ctl, personId, 'a');
    clock.advance(10 * 60_000);
    await expect(confirmTwoStepSetup(ctl, personId, codeAt(setup.secret, clock.now()))).rejects.toThrow(
      /expire/,
    );
  });

  it('keeps the old phone working until a new setup is confirmed, and the old one stops after', async () => {
    const first = await enable();
    const second = await beginTwoStepSetup(ctl, personId, 'a');
    clock.advance(30_000);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(first.secret, clock.now()))).toBe(true);
    clock.advance(30_000);
    await confirmTwoStepSetup(ctl, personId, codeAt(second.secret, clock.now()));
    clock.advance(30_000);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(first.secret, clock.now()))).toBe(false);
    expect(await verifyTwoStepCode(ctl, personId, codeAt(second.secret, clock.now()))).toBe(true);
    expect(await verifyTwoStepCode(ctl, personId, first.codes[0]!)).toBe(false);
  });
});
