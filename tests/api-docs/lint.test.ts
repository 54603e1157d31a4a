import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * docs/openapi.yaml passes `redocly lint` with Redocly's recommended rules: no error and no
 * warning but those written down with their reasons (redocly.yaml, .redocly.lint-ignore.yaml).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

it('passes redocly lint, with every exception written down', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CLI, 'lint', 'docs/openapi.yaml', '--format=json'],
    { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  const report = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number; ignored: number };
    problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
  };
  const said = report.problems.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer})`);
  expect(said).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);
