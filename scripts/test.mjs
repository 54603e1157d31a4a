#!/usr/bin/env node
// Checks that Chromium, nginx and promtool are there (installs them as root with apt, else says the command),
// builds Footfall (scripts/build.ts: the tests that start processes run the built command), then
// runs the whole test suite with vitest and ends with one line `N passed, N failed` that counts
// every test vitest ran, so CI and people read the same total. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * What the tests run besides Node: Debian's Chromium (the browser tests drive /usr/bin/chromium),
 * nginx (the crawl recipe's mirror) and promtool (package prometheus: it checks /metrics). Missing ones are installed when this runs as root with
 * apt; otherwise the run stops at once with the command to run, instead of a wall of failures.
 */
const NEEDS = [
  { name: 'chromium', found: () => existsSync('/usr/bin/chromium') },
  {
    name: 'nginx',
    found: () => spawnSync('sh', ['-c', 'command -v nginx'], { stdio: 'ignore' }).status === 0,
  },
  {
    name: 'prometheus',
    found: () => spawnSync('sh', ['-c', 'command -v promtool'], { stdio: 'ignore' }).status === 0,
  },
];
function preflight() {
  const missing = NEEDS.filter((n) => !n.found()).map((n) => n.name);
  if (missing.length === 0) return;
  const install = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (canInstall) {
    console.log(`test: installing ${missing.join(' and ')} (${install})`);
    const done = spawnSync('sh', ['-c', `${install} >/dev/null`], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    // the nginx package starts a server on port 80: the tests run their own
    spawnSync('sh', ['-c', 'nginx -s stop || true'], { stdio: 'ignore' });
    if (done.status === 0 && NEEDS.every((n) => n.found())) return;
  }
  console.error(
    `test: the tests need ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed. Run:\n\n  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\n`,
  );
  console.log('0 passed, 1 failed');
  process.exit(1);
}
preflight();
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
