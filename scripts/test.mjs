#!/usr/bin/env node
// Builds Footfall (scripts/build.ts: the tests that start processes run the built command), then
// runs the whole test suite with vitest and ends with one line `N passed, N failed` that counts
// every test vitest ran, so CI and people read the same total. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, '.test-results');
const outFile = join(outDir, 'vitest.json');
mkdirSync(outDir, { recursive: true });
rmSync(outFile, { force: true });

const build = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build.ts')], {
  stdio: 'inherit',
  cwd: root,
});
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${outFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', cwd: root },
);

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(outFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  // a failed test counts once; a file that failed without a failed test (it did not load, or a
  // hook threw) counts as one more
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  failed = (report.numFailedTests ?? 0) + brokenFiles;
} catch {
  failed += 1; // no report at all: vitest itself failed before running
}
const status = run.status ?? 1;
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : status);
