import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOOTFALL_BIN } from '../support/footfall.ts';
import {
  accessibilityProblems,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * Health's backups card as a person sees it: before any backup, then after `footfall backup now`
 * wrote one whose off-site copy failed (a bucket nothing answers on): the copy's failure is named
 * among the problems and on its row.
 */
const BUCKET = 'http://KEY:SECRET@127.0.0.1:9/offsite/footfall?region=us-east-1';

describe('backups in Health', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ FOOTFALL_BACKUP_S3: BUCKET });
    await createOwner(d);
  }, 60_000);
  afterAll(() => d?.close());

  it('says none was written yet, then shows the backup and its failed off-site copy', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/health');
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Backups' }) });
    await card.getByText('No backup yet').waitFor();

    const run = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [FOOTFALL_BIN, 'backup', 'now'],
        {
          env: {
            PATH: process.env.PATH ?? '',
            FOOTFALL_DATA_DIR: d.footfall.dataDir,
            FOOTFALL_BACKUP_S3: BUCKET,
          },
        },
        (_error, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
    expect(run.stdout).toMatch(/backup written: /);
    expect(run.stderr).toMatch(
      /the off-site copy failed: no answer from the bucket \(ECONNREFUSED\) \(127\.0\.0\.1:9\)/,
    );
    expect(run.stderr).not.toContain('SECRET');

    await page.reload();
    await card.getByText('Last backup').waitFor();
    expect(await card.locator('.health-row.problem').textContent()).toMatch(
      /Off-site copy.*failed.*127\.0\.0\.1:9/,
    );
    expect(await page.getByRole('alert').textContent()).toMatch(/The last off-site copy failed/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'health-backups-1280-light');
    await context.close();
    const small = await personContext(d, { width: 360, dark: true });
    const phone = await small.newPage();
    await signIn(phone);
    await phone.goto('/health');
    await phone.getByText('Last backup').waitFor();
    expect(await accessibilityProblems(phone)).toEqual([]);
    await screenshot(phone, 'health-backups-360-dark');
    await small.close();
  }, 90_000);
});
