import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { instanceKeyMatches } from './alerts.ts';
import { openControlDb } from './open.ts';
import { createShare } from './shares.ts';
import { createSite } from './sites.ts';

const A = 'the-first-instance-secret-0123456789';
const B = 'another-instance-secret-9876543210xx';
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the instance key check', () => {
  it('tells a changed key, also on a database from before the check value existed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-keycheck-'));
    const path = join(dir, 'app.db');
    const open = (secret: string) => openControlDb({ path, secret, version: '0.1.0' });
    let ctl = open(A);
    expect(instanceKeyMatches(ctl)).toBe(true);
    const site = await createSite(ctl, { domain: 'keys.example' });
    await createShare(ctl, site.id, {}); // a value sealed with A
    // as a database from before the check value: without it
    ctl.raw.prepare("DELETE FROM meta WHERE key = 'key_check'").run();
    await ctl.close();

    // opened with another key: the sealed share token says so, and no check value is written
    ctl = open(B);
    expect(instanceKeyMatches(ctl)).toBe(false);
    expect(ctl.raw.prepare("SELECT 1 FROM meta WHERE key = 'key_check'").get()).toBeUndefined();
    await ctl.close();

    // the right key back: the check value is written with it, and matches
    ctl = open(A);
    expect(instanceKeyMatches(ctl)).toBe(true);
    expect(ctl.raw.prepare("SELECT 1 FROM meta WHERE key = 'key_check'").get()).toBeDefined();
    await ctl.close();
    ctl = open(B);
    expect(instanceKeyMatches(ctl)).toBe(false);
    await ctl.close();
  });
});
