import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTROL_MIGRATIONS } from '@footfall/control';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningFootfall, runFootfall, startFootfall, tempDir } from '../support/footfall.ts';
import { FIXTURE_API_TOKEN, type FixtureMeta } from './fixture.ts';

/**
 * Upgrades from real older installs (docs/operations.md, "Releasing"): each release's fixture, a
 * data directory that release made (make-fixture.ts), opened by today's `footfall start`. The
 * before-upgrade backup is written first, named after the release; every read the fixture kept
 * answers as it did then (fields added since may be there too); the data directory's version moves
 * to today's.
 */
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
const TODAY = readFileSync(fileURLToPath(new URL('../../VERSION', import.meta.url)), 'utf8').trim();
const releases = existsSync(FIXTURES) ? readdirSync(FIXTURES).sort() : [];

let running: Pick<RunningFootfall, 'stop'> | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('upgrading a data directory made by a release', () => {
  it('has the fixture of the first release', () => {
    expect(releases).toContain('0.1.0');
  });

  it.each(releases)(
    'from %s: backs everything up first, then reads it as that release did',
    async (release) => {
      const fixture = JSON.parse(
        readFileSync(join(FIXTURES, release, 'fixture.json'), 'utf8'),
      ) as FixtureMeta & {
        reports: Record<string, unknown>;
      };
      const dataDir = join(tempDir('ff-upgrade-'), 'data');
      cpSync(join(FIXTURES, release, 'data'), dataDir, { recursive: true });
      const started = await startFootfall({
        FOOTFALL_DATA_DIR: dataDir,
        FOOTFALL_API_TOKEN: FIXTURE_API_TOKEN,
      });
      running = started;
      if (release !== TODAY) {
        const backedUp = await started.waitForLog((l) => l.msg === 'everything backed up before the upgrade');
        expect(backedUp.file).toBe(
          join(dataDir, 'backups', 'before-upgrade', `footfall-${release}.ffbackup`),
        );
        expect(readdirSync(join(dataDir, 'backups', 'before-upgrade'))).toEqual([
          `footfall-${release}.ffbackup`,
        ]);
        // app.db is the query service's to migrate, once that backup is written: the gateway waited
        const waited = await started.waitForLog(
          (l) => l.msg?.startsWith('waiting for the query service') === true,
        );
        expect(waited.time).toBeLessThanOrEqual(backedUp.time as number);
      }
      await answersAsThen(started.url, fixture);
    },
    120_000,
  );

  it('from the first release, killed in the middle of its migration: the next start runs it again whole', async () => {
    const fixture = JSON.parse(readFileSync(join(FIXTURES, '0.1.0', 'fixture.json'), 'utf8')) as Fixture;
    const dataDir = join(tempDir('ff-upgrade-killed-'), 'data');
    cpSync(join(FIXTURES, '0.1.0', 'data'), dataDir, { recursive: true });
    const ff = runFootfall(['start'], {
      FOOTFALL_DATA_DIR: dataDir,
      FOOTFALL_API_TOKEN: FIXTURE_API_TOKEN,
      // the first migration of each start waits inside its transaction: the kill lands there (the
      // first release's analytics schema is today's: app.db is what migrates)
      FOOTFALL_UNSAFE_MIGRATION_PAUSE_MS: '3000',
    });
    running = ff;
    const first = await ff.waitForLog((l) => l.msg === 'control database migrated', 60_000);
    const pid = ff
      .logs()
      .filter((l) => l.msg === 'child started' && l.child === 'query')
      .at(-1)?.pid as number;
    process.kill(pid, 'SIGKILL');
    // restarted by `footfall start`, the query service finds app.db as it was before the
    // migrations (they are one transaction), runs them again from the first, and goes on
    const listening = await ff.waitForLog((l) => l.msg === 'ingest gateway listening', 90_000);
    const migrated = ff.logs().filter((l) => l.msg === 'control database migrated');
    expect(migrated.filter((l) => l.migration === first.migration)).toHaveLength(2);
    expect(migrated.at(-1)?.migration).toBe(CONTROL_MIGRATIONS.at(-1)?.version);
    // the before-upgrade backup was whole before the first try: the second start keeps it
    expect(readdirSync(join(dataDir, 'backups', 'before-upgrade'))).toEqual(['footfall-0.1.0.ffbackup']);
    await answersAsThen(`http://127.0.0.1:${listening.port as number}`, fixture);
  }, 180_000);
});

type Fixture = FixtureMeta & { reports: Record<string, unknown> };

/** Every read the fixture kept answers as it did then (fields added since may be there too). */
async function answersAsThen(url: string, fixture: Fixture): Promise<void> {
  const period = `from=${fixture.from}&to=${fixture.to}`;
  for (const [path, answer] of Object.entries(fixture.reports)) {
    const read = `${url}/api/v1/sites/${fixture.site}${path.replace('{period}', period)}`;
    // the visitor store is built again in the background after an upgrade: reports answer meanwhile
    await expect
      .poll(
        async () => {
          const res = await fetch(read, { headers: { authorization: `Bearer ${FIXTURE_API_TOKEN}` } });
          return res.status === 200 ? res.json() : res.status;
        },
        { timeout: 30_000 },
      )
      .toMatchObject(answer as object);
  }
}
