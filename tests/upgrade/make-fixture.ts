// Makes the upgrade test's fixture of a release (docs/operations.md, "Releasing"): with the release
// built (`pnpm build` at its tag), runs `footfall start` on a fresh data directory, sends a few
// days of varied visits through the gateway as the tracker would, waits until they are stored,
// keeps the answers of the reads the upgrade must not change, stops, and copies the databases and
// the instance key (not the write-ahead log: all of it is applied) into
// tests/upgrade/fixtures/<version>/. Run: node --import tsx tests/upgrade/make-fixture.ts
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_API_TOKEN, FIXTURE_FILES, type FixtureMeta, REPORT_PATHS } from './fixture.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const version = readFileSync(join(root, 'VERSION'), 'utf8').trim();
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
];
const REFERRERS = [
  '',
  'https://www.google.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://chatgpt.com/',
];
const PATHS = ['/', '/pricing', '/blog/counting-visits', '/docs', '/signup'];
const HOUR = 3_600_000;
const OPERATOR = 'upgrade-fixture-operator-0123456789';

const work = mkdtempSync(join(tmpdir(), 'ff-fixture-'));
const dataDir = join(work, 'data');
const child = spawn(process.execPath, [join(root, 'packages/cli/bin/footfall.mjs'), 'start'], {
  env: {
    PATH: process.env.PATH ?? '',
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_ADDR: '127.0.0.1:0',
    FOOTFALL_SITES: 'example.com',
    FOOTFALL_API_TOKEN: FIXTURE_API_TOKEN,
    FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    FOOTFALL_GEO: 'off',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (c) => {
  output += c;
});
const stopped = new Promise((r) => child.once('exit', r));

/** Waits for a log line of `footfall start` whose message is `msg`; resolves with the line. */
async function logged(msg: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.msg === msg) return parsed;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`footfall did not log "${msg}":\n${output}`);
}

try {
  const listening = await logged('ingest gateway listening');
  await logged('query service listening');
  const base = `http://127.0.0.1:${listening.port as number}`;
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}/api/v1${path}`, {
      headers: { authorization: `Bearer ${FIXTURE_API_TOKEN}` },
    });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const site = (await api<{ sites: { id: string }[] }>('/sites')).sites[0]!.id;
  // 30 visitors over the last 24 hours (the oldest the gateway takes is 25 hours), up to 3 visits
  // each of a few pages and a signup, sent with their age so the gateway dates them in the past
  const now = Date.now();
  let sent = 0;
  let pageviews = 0;
  for (let v = 0; v < 30; v++) {
    for (let visit = 0; visit < 1 + (v % 3); visit++) {
      const start = now - 24 * HOUR + v * 35 * 60_000 + visit * 2 * HOUR;
      for (let page = 0; page < 1 + ((v + visit) % 4); page++) {
        const utm =
          page === 0 && v % 5 === 0 ? '?utm_source=newsletter&utm_medium=email&utm_campaign=launch' : '';
        const body: Record<string, unknown> = {
          s: site,
          k: 'pv',
          u: `https://example.com${PATHS[(v + page) % PATHS.length]}${utm}`,
          r: page === 0 ? REFERRERS[(v + visit) % REFERRERS.length] : '',
          v: `fixture-visitor-${String(v).padStart(3, '0')}`,
          w: 1280,
          h: 800,
          a: Math.max(0, now - (start + page * 60_000)),
        };
        if (page === 1 && v % 4 === 0)
          Object.assign(body, { k: 'ev', n: 'Signup', p: { plan: v % 8 ? 'pro' : 'free' } });
        const res = await fetch(`${base}/api/e`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': UAS[v % UAS.length]! },
          body: JSON.stringify(body),
        });
        if (res.status !== 202) throw new Error(`event ${sent}: ${res.status} ${await res.text()}`);
        sent++;
        if (body.k === 'pv') pageviews++;
      }
    }
  }
  const from = new Date(now - 2 * 24 * HOUR).toISOString().slice(0, 10);
  const to = new Date(now).toISOString().slice(0, 10);
  const period = `from=${from}&to=${to}`;
  // stored once the report counts every pageview and the writer has nothing left to apply
  const lag = async () => {
    const res = await fetch(`${base}/_footfall/health`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    return ((await res.json()) as { writer: { lag_events: number } }).writer.lag_events;
  };
  for (let i = 0; ; i++) {
    const { kpis } = await api<{ kpis: { pageviews: number } }>(`/sites/${site}/report?${period}`);
    if (kpis.pageviews === pageviews && (await lag()) === 0) break;
    if (i > 300) throw new Error('the events were not stored within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const reports: Record<string, unknown> = {};
  for (const path of REPORT_PATHS)
    reports[path] = await api(`/sites/${site}${path.replace('{period}', period)}`);
  const meta: FixtureMeta = { version, site, from, to, events: sent, made: new Date(now).toISOString() };
  child.kill('SIGTERM');
  await stopped;
  const out = join(root, 'tests/upgrade/fixtures', version);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'data'), { recursive: true });
  for (const file of FIXTURE_FILES)
    if (existsSync(join(dataDir, file))) cpSync(join(dataDir, file), join(out, 'data', file));
  writeFileSync(join(out, 'fixture.json'), `${JSON.stringify({ ...meta, reports }, null, 2)}\n`);
  console.log(`wrote ${out}: ${sent} events of ${site}, ${from} to ${to}`);
} finally {
  child.kill('SIGTERM');
  await stopped;
  rmSync(work, { recursive: true, force: true });
}
