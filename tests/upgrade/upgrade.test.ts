import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFootfall, tempDir } from '../support/footfall.ts';
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

let running: Awaited<ReturnType<typeof startFootfall>> | undefined;
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
      running = await startFootfall({ FOOTFALL_DATA_DIR: dataDir, FOOTFALL_API_TOKEN: FIXTURE_API_TOKEN });
      if (release !== TODAY) {
        const backedUp = await running.waitForLog((l) => l.msg === 'everything backed up before the upgrade');
        expect(backedUp.file).toBe(
          join(dataDir, 'backups', 'before-upgrade', `footfall-${release}.ffbackup`),
        );
        expect(readdirSync(join(dataDir, 'backups', 'before-upgrade'))).toEqual([
          `footfall-${release}.ffbackup`,
        ]);
        // app.db is the query service's to migrate, once that backup is written: the gateway waited
        const waited = await running.waitForLog(
          (l) => l.msg?.startsWith('waiting for the query service') === true,
        );
        expect(waited.time).toBeLessThanOrEqual(backedUp.time as number);
      }
      const period = `from=${fixture.from}&to=${fixture.to}`;
      for (const [path, answer] of Object.entries(fixture.reports)) {
        const url = `${running.url}/api/v1/sites/${fixture.site}${path.replace('{period}', period)}`;
        // the visitor store is built again in the background after an upgrade: reports answer meanwhile
        await expect
          .poll(
            async () => {
              const res = await fetch(url, { headers: { authorization: `Bearer ${FIXTURE_API_TOKEN}` } });
              return res.status === 200 ? res.json() : res.status;
            },
            { timeout: 30_000 },
          )
          .toMatchObject(answer as object);
      }
    },
    120_000,
  );
});
