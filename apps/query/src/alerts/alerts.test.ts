import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@footfall/config';
import {
  ALERT_RETRY_DELAYS_MS,
  createAlertDestination,
  createCipher,
  createSite,
  deliveriesOf,
  faviconOf,
  installCheckOf,
  type Site,
} from '@footfall/control';
import { type TestClock, tempControlDb, testClock } from '@footfall/control/testing';
import { createLogger } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { checkCustomSignature, createConnection } from '@footfall/payments';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryDeps } from '../deps.ts';
import { createDuckDbEngine, type Engine } from '../engine/index.ts';
import { ev, onStream } from '../engine/test-fixtures.ts';
import { Alerts } from './alerts.ts';
import type { AlertMessage } from './message.ts';

/**
 * The alert rules with real data: a real control database, a real DuckDB engine loaded through
 * the loader, a local HTTP receiver (let through by the test-only allow list) and a local site
 * homepage for the install check. The clock is the test's.
 */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  message: AlertMessage;
}

let clock: TestClock;
let control: ReturnType<typeof tempControlDb>;
let engine: Engine;
let receiver: Server;
let received: Received[];
/** how many of the next requests the receiver answers 500 */
let failNext: number;
let homepage: Server;
let homepageHtml: string;
let scripts: Record<string, string>;
/** the install check's requests to the homepage server, and how many were open at once at most */
let checkRequests: string[];
let inFlight: number;
let maxInFlight: number;
let alerts: Alerts;
let site: Site;
let stream = 0;

const listen = (s: Server) =>
  new Promise<number>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );

beforeEach(async () => {
  clock = testClock(Date.UTC(2026, 10, 26, 15, 0, 0)); // a Thursday afternoon, UTC
  control = tempControlDb({ clock });
  // in the data directory, so the disk's runway has bytes per event to go by
  mkdirSync(`${control.dir}/data`, { recursive: true });
  engine = await createDuckDbEngine({
    path: `${control.dir}/data/analytics.duckdb`,
    threads: 1,
    memoryLimit: '256MB',
  });
  received = [];
  failNext = 0;
  tailerLag = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (failNext > 0) {
        failNext -= 1;
        res.writeHead(500).end();
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(307, { location: 'http://127.0.0.1:9/' }).end();
        return;
      }
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body,
        message: JSON.parse(body) as AlertMessage,
      });
      res.writeHead(204).end();
    });
  });
  homepageHtml = '<html><body>no tracker here</body></html>';
  scripts = {};
  checkRequests = [];
  inFlight = 0;
  maxInFlight = 0;
  homepage = createServer(async (req, res) => {
    if (/install check/.test(req.headers['user-agent'] ?? '')) {
      checkRequests.push(req.url ?? '');
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      // a homepage takes a moment: checks that overlap are seen overlapping
      if (req.url === '/') await new Promise((r) => setTimeout(r, 15));
      inFlight -= 1;
    }
    const script = scripts[req.url ?? ''];
    if (script !== undefined)
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(Buffer.from(script, 'latin1'));
    else res.writeHead(200, { 'content-type': 'text/html' }).end(homepageHtml);
  });
  receiverPort = await listen(receiver);
  homepagePort = await listen(homepage);
  site = await createSite(control.ctl, { domain: 'example.com' });
  const deps = alertsDeps({ FOOTFALL_BASE_URL: 'https://footfall.example.com' });
  alerts = new Alerts(deps);
});
let receiverPort: number;
let homepagePort: number;
/** WAL records the tailer has not loaded yet (the fake tailer's lag) */
let tailerLag = 0;

afterEach(async () => {
  await alerts.stop();
  await engine.close();
  await control.cleanup();
  await new Promise((r) => receiver.close(r));
  await new Promise((r) => homepage.close(r));
});

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Visits of `count` different visitors at `at` (one pageview each), loaded as the tailer loads them. */
async function visits(at: number, count: number, prefix = 'v'): Promise<void> {
  stream += 1;
  const records = Array.from({ length: count }, (_, i) =>
    ev(iso(at + i * 1000), { site: site.id, visitor: `${prefix}${at}-${i}` }),
  );
  await engine.applyBatch({ records: onStream(`s${stream}`, records) });
}

async function webhook(kinds?: string[]) {
  const made = await createAlertDestination(control.ctl, site.id, {
    channel: 'webhook',
    target: `http://127.0.0.1:${receiverPort}/hook/secret-path-token`,
    host: `127.0.0.1:${receiverPort}`,
    kinds: (kinds ?? ['tracking_stopped', 'busy_day', 'payment', 'disk_filling', 'health']) as never,
  });
  return made;
}

const kinds = () => received.map((r) => `${r.message.kind}:${r.message.state ?? '-'}`);

describe('alerts', () => {
  it('signs each webhook post so the receiver can check it, with the documented body', async () => {
    const { destination, secret } = await webhook();
    const error = await alerts.test(site, destination.id);
    expect(error).toBeNull();
    expect(received).toHaveLength(1);
    const [r] = received;
    expect(r!.path).toBe('/hook/secret-path-token');
    expect(r!.headers['content-type']).toBe('application/json');
    expect(r!.headers['footfall-alert-id']).toBe(r!.message.id);
    expect(
      checkCustomSignature({
        secret: secret!,
        timestamp: r!.headers['footfall-timestamp'] as string,
        signature: r!.headers['footfall-signature'] as string,
        body: Buffer.from(r!.body),
        nowMs: Date.now(),
      }),
    ).toBeNull();
    expect(r!.message).toMatchObject({
      kind: 'test',
      state: null,
      site: { id: site.id, domain: 'example.com' },
      url: `https://footfall.example.com/sites/${site.id}`,
    });
    expect(Object.keys(r!.message).sort()).toEqual([
      'at',
      'data',
      'id',
      'kind',
      'site',
      'state',
      'text',
      'title',
      'url',
    ]);
  });

  it('sends a busy day once, when today has twice the usual visitors of the weekday and 20 more', async () => {
    await webhook(['busy_day']);
    const today = Date.UTC(2026, 10, 26, 9);
    for (const weeks of [1, 2, 3, 4]) await visits(today - weeks * 7 * DAY, 10, `w${weeks}-`);
    // other weekdays are busier, and do not count
    await visits(today - 1 * DAY, 60, 'wed-');
    await visits(today, 29, 'today-');
    await alerts.tick();
    expect(kinds()).toEqual([]); // 29 < 10 + 20
    await visits(today + 3600_000, 1, 'late-');
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']);
    expect(received[0]!.message.data).toEqual({ day: '2026-11-26', visitors: 30, usual: 10 });
    expect(received[0]!.message.title).toBe('example.com is having a busy day: 30 visitors so far');
    await visits(today + 2 * 3600_000, 40, 'more-');
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']); // once a day
  });

  it('has no busy day before the site has two weeks of the weekday behind it', async () => {
    await webhook(['busy_day']);
    const today = Date.UTC(2026, 10, 26, 9);
    await visits(today - 7 * DAY, 1);
    await visits(today, 100);
    await alerts.tick();
    expect(kinds()).toEqual([]);
  });

  it('marks a site quiet for two days stopped after reading its homepage, and clears it with the next visit', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 3);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    expect(received[0]!.message.data).toEqual({ tracker: 'missing', detail: null });
    expect(received[0]!.message.text).toContain(`/js/${site.id}.js) is not on its homepage`);
    const check = installCheckOf(control.ctl, site.id)!;
    expect(check.stoppedAt).toBe(clock.now());
    expect(check.outcome.tracker).toBe('missing');
    // the next pass does not check again (daily), and says nothing new
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    await visits(clock.now(), 1, 'back-');
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started', 'tracking_stopped:cleared']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).toBeNull();
  });

  it('judges no site quiet while the tailer has a backlog, and clears a stop once older visits are loaded', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 3);
    // a restart after downtime: the WAL holds newer visits than the engine yet
    tailerLag = 5_000;
    await alerts.tick();
    expect(kinds()).toEqual([]);
    expect(installCheckOf(control.ctl, site.id)).toBeUndefined();
    tailerLag = 0;
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    // visits that came before the check, loaded only now: the site is not quiet after all
    await visits(clock.now() - 3_600_000, 1, 'late-');
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started', 'tracking_stopped:cleared']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).toBeNull();
  });

  it('checks at most 50 sites a day, 4 at once, reading at most 20 scripts of a page', async () => {
    const quiet = clock.now() - 3 * DAY;
    const sites = [site];
    for (let i = 0; i < 54; i++) sites.push(await createSite(control.ctl, { domain: `s${i}.example.com` }));
    stream += 1;
    await engine.applyBatch({
      records: onStream(
        `s${stream}`,
        sites.map((s, i) => ev(iso(quiet + i * 1000), { site: s.id, visitor: `quiet-${i}` })),
      ),
    });
    homepageHtml = Array.from({ length: 25 }, (_, i) => `<script src="/lib${i}.js"></script>`).join('');
    await alerts.tick();
    const pages = checkRequests.filter((url) => url === '/');
    expect(pages).toHaveLength(50);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeGreaterThan(1);
    // no script carries the site id: each page's first 20 are read, the other 5 never
    expect(checkRequests.filter((url) => url.startsWith('/lib'))).toHaveLength(50 * 20);
    expect(checkRequests.some((url) => /^\/lib2[0-4]\.js$/.test(url))).toBe(false);
    // the day's 50 are spent: later passes that day check nothing more
    checkRequests = [];
    clock.advance(3_600_000);
    await alerts.tick();
    expect(checkRequests).toEqual([]);
  }, 60_000);

  it('finds the tracker in the page or inside one of its scripts', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 1);
    homepageHtml = `<script defer src="/js/app.js"></script><script src='/assets/stats.js'></script>`;
    scripts['/assets/stats.js'] = `(function(){var s=${JSON.stringify(site.id)};fetch("/api/e")})()`;
    await alerts.tick();
    expect(received[0]!.message.data).toEqual({ tracker: 'found', detail: null });
    expect(received[0]!.message.text).toContain('The tracker is still on its homepage');
  });

  it('sends the disk filling once when it starts and once when it clears, to destinations of every site', async () => {
    // the threshold is configuration: an instance whose every disk is filling
    await alerts.stop();
    alerts = new Alerts(alertsDeps({ FOOTFALL_DISK_ALERT_DAYS: '100000000' }));
    await webhook(['disk_filling']);
    const other = await createSite(control.ctl, { domain: 'other.example' });
    await createAlertDestination(control.ctl, other.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/hook/secret-path-token`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['disk_filling'],
    });
    await visits(clock.now() - DAY, 50);
    await alerts.tick();
    await alerts.tick();
    // one post, although two sites list the same URL
    expect(kinds()).toEqual(['disk_filling:started']);
    expect(received[0]!.message.site).toBeNull();
    expect(received[0]!.message.data).toMatchObject({ threshold_days: 100000000 });
    // the same disk measured against a threshold it passes by far (as after making room)
    await alerts.stop();
    alerts = new Alerts(alertsDeps({ FOOTFALL_DISK_ALERT_DAYS: '1' }));
    clock.advance(2 * 60_000);
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['disk_filling:started', 'disk_filling:cleared']);
  });

  it('sends a health problem when it starts and when it clears, and nothing while nobody receives it', async () => {
    const { ctl } = control;
    const keyCheck = () =>
      ctl.raw.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string };
    await alerts.tick(); // nobody receives health: nothing is sent
    expect(keyCheck()).toBeDefined();
    const mine = keyCheck().value;
    // the data was sealed with another key
    ctl.raw
      .prepare("UPDATE meta SET value = ? WHERE key = 'key_check'")
      .run(createCipher('another-secret-0123456789abcdef').sealText('footfall', 'key-check'));
    await alerts.tick();
    expect(kinds()).toEqual([]);
    // a destination added during the problem hears that it started
    await webhook(['health']);
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['health:started']);
    expect(received[0]!.message.data).toMatchObject({ condition: 'key_mismatch' });
    ctl.raw.prepare("UPDATE meta SET value = ? WHERE key = 'key_check'").run(mine);
    await alerts.tick();
    expect(kinds()).toEqual(['health:started', 'health:cleared']);
  });

  it('sends a gateway refusing events (disk full) when it starts and when it clears', async () => {
    await webhook(['health']);
    // a gateway's status socket, as apps/ingest answers it
    let availability = { state: 'refusing', reason: 'no space left on device' };
    const run = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: `${control.dir}/data` })).paths.run;
    const gateway = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ stream: 'gw1', availability })),
    );
    await new Promise<void>((resolve) => gateway.listen(`${run}/ingest-gw1.sock`, resolve));
    try {
      await alerts.tick();
      expect(kinds()).toEqual(['health:started']);
      expect(received[0]!.message.data).toEqual({
        condition: 'wal_refusing',
        reason: 'gw1: no space left on device',
      });
      await alerts.tick();
      availability = { state: 'accepting', reason: '' };
      await alerts.tick();
      expect(kinds()).toEqual(['health:started', 'health:cleared']);
    } finally {
      await new Promise((r) => gateway.close(r));
    }
  });

  it('tells of each live payment once, in the site currency, even when a sync sees it again', async () => {
    await webhook(['payment']);
    const { connection } = createConnection(control.ctl, { siteId: site.id, provider: 'custom' });
    const pay = (id: string, seq: number, amount: number, test = 0) =>
      control.ctl.raw
        .prepare(
          `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind, test, inbox_seq)
           VALUES (?, ?, ?, ?, ?, 0, 'USD', 'one_time', ?, ?)
           ON CONFLICT (connection_id, payment_id) DO UPDATE SET inbox_seq = excluded.inbox_seq`,
        )
        .run(connection.id, id, site.id, clock.now(), amount, test, seq);
    pay('before', 1, 999);
    await alerts.tick(); // the first look: what is already there is not news
    expect(kinds()).toEqual([]);
    pay('p1', 10, 4900);
    pay('sandbox', 11, 100, 1);
    await alerts.tick();
    expect(kinds()).toEqual(['payment:-']);
    expect(received[0]!.message).toMatchObject({
      title: 'example.com: someone paid $49.00',
      data: { payments: 1, amount_minor: 4900, currency: 'USD' },
    });
    // a sync stores p1 again (its row's inbox_seq moves on), and p2 arrives
    pay('p1', 20, 4900);
    pay('p2', 21, 1500);
    await alerts.tick();
    expect(kinds()).toEqual(['payment:-', 'payment:-']);
    expect(received[1]!.message.data).toMatchObject({ payments: 1, amount_minor: 1500 });
    await alerts.tick();
    expect(kinds()).toHaveLength(2);
  });

  it('sends Milestone reached only to destinations that asked for it, once per milestone', async () => {
    await webhook(); // every other kind
    await createAlertDestination(control.ctl, site.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/milestones`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['milestone'],
    });
    await visits(clock.now() - DAY, 120);
    await alerts.tick();
    const told = received.filter((r) => r.message.kind === 'milestone');
    expect(new Set(received.map((r) => r.path))).toEqual(new Set(['/milestones']));
    expect(told.map((r) => r.message.title).sort()).toEqual([
      'example.com reached 100 pageviews',
      'example.com reached 100 visitors',
    ]);
    expect(told[0]!.message.data).toMatchObject({ day: '2026-11-25', value: 120 });
    await alerts.tick();
    expect(received.filter((r) => r.message.kind === 'milestone')).toHaveLength(2);
  });

  it('retries a failed delivery after 30 s, 2 min, 10 min, 1 h and 6 h, then gives up', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 1);
    failNext = 2;
    await alerts.tick();
    expect(received).toHaveLength(0);
    clock.advance(ALERT_RETRY_DELAYS_MS[0]!);
    await alerts.drain();
    expect(received).toHaveLength(0);
    clock.advance(ALERT_RETRY_DELAYS_MS[1]!);
    await alerts.drain();
    expect(received).toHaveLength(1);
    const [sent] = await deliveriesOf(control.ctl, received[0]!.message.id);
    expect(sent).toMatchObject({ state: 'sent', attempts: 3 });
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(2);
    expect(alerts.counts.sent.get('tracking_stopped|webhook')).toBe(1);

    // a receiver that never takes it: six attempts, then given up
    await visits(clock.now(), 1, 'back-');
    failNext = 100;
    await alerts.tick();
    for (const delay of ALERT_RETRY_DELAYS_MS) {
      clock.advance(delay);
      await alerts.drain();
    }
    expect(alerts.counts.givenUp.get('tracking_stopped|webhook')).toBe(1);
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(2 + 6);
    clock.advance(DAY);
    await alerts.drain();
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(8);
  });

  it('refuses a redirect to a private address at delivery', async () => {
    const made = await createAlertDestination(control.ctl, site.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/moved`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['health'],
    });
    const error = await alerts.test(site, made.destination.id);
    expect(error).toBe('refused: a loopback address');
  });
});

function alertsDeps(env: Record<string, string>): QueryDeps {
  const config = loadConfig({
    FOOTFALL_DATA_DIR: `${control.dir}/data`,
    FOOTFALL_UNSAFE_OUTBOUND_ALLOW: `127.0.0.1:${receiverPort},127.0.0.1:${homepagePort}`,
    FOOTFALL_UNSAFE_SITE_ORIGIN: `http://127.0.0.1:${homepagePort}`,
    ...env,
  });
  return {
    config,
    instance: prepareInstance(config),
    logger: createLogger({ level: 'silent', name: 'test' }),
    now: clock.now,
    control: control.ctl,
    analytics: {
      engine,
      engineState: { ready: true, waiting: null, since: null },
      tailer: {
        get lag() {
          return tailerLag;
        },
      },
    },
  } as unknown as QueryDeps;
}

describe('favicons', () => {
  const PNG = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.alloc(40, 1),
  ]);

  it('keeps the icon the homepage links to, once a week, and never an SVG', async () => {
    homepageHtml =
      '<head><link rel="shortcut icon" href="/static/icon.png"><link rel=stylesheet href=/a.css></head>';
    scripts['/static/icon.png'] = PNG.toString('latin1');
    await alerts.tick();
    const stored = faviconOf(control.ctl, site.id)!;
    expect(stored.image?.contentType).toBe('image/png');
    expect(stored.image?.bytes.subarray(0, 8)).toEqual(PNG.subarray(0, 8));
    // an SVG (it can carry script) is not kept, even as /favicon.ico
    homepageHtml = '<link rel="icon" href="/icon.svg">';
    scripts['/icon.svg'] = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    scripts['/favicon.ico'] = scripts['/icon.svg'];
    clock.advance(86_400_000);
    await alerts.tick();
    expect(faviconOf(control.ctl, site.id)!.fetchedAt).toBe(stored.fetchedAt); // not due for a week
    clock.advance(7 * 86_400_000);
    await alerts.tick();
    expect(faviconOf(control.ctl, site.id)!.image).toBeNull();
  });
});
