import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@footfall/config';
import { createAlertDestination, createSite, type Site } from '@footfall/control';
import { type TestClock, tempControlDb, testClock } from '@footfall/control/testing';
import { createLogger } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { afterEach, beforeEach } from 'vitest';
import type { QueryDeps } from '../deps.ts';
import { createDuckDbEngine, type Engine } from '../engine/index.ts';
import { ev, onStream } from '../engine/test-fixtures.ts';
import { Alerts } from './alerts.ts';
import type { AlertMessage } from './message.ts';

/**
 * What the alert tests share. The alert rules run with real data: a real control database, a real DuckDB engine loaded through
 * the loader, a local HTTP receiver (let through by the test-only allow list) and a local site
 * homepage for the install check. The clock is the test's.
 */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  message: AlertMessage;
}

export let clock: TestClock;
export let control: ReturnType<typeof tempControlDb>;
export let engine: Engine;
let receiver: Server;
export let received: Received[];
let homepage: Server;
export let scripts: Record<string, string>;
/** how many install-check requests were open at once at most */
let inFlight: number;
export let maxInFlight: number;
export let alerts: Alerts;
export let site: Site;
let stream = 0;

/** What a test sets as it goes. */
export const t = {
  /** how many of the next requests the receiver answers 500 */
  failNext: 0,
  homepageHtml: '',
  /** the install check's requests to the homepage server */
  checkRequests: [] as string[],
  /** WAL records the tailer has not loaded yet (the fake tailer's lag) */
  tailerLag: 0,
};

const listen = (s: Server) =>
  new Promise<number>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );

/** Registers the set-up and tear-down of every test in the calling file. */
export function useAlertsHarness(): void {
  beforeEach(setUp);
  afterEach(tearDown);
}

async function setUp(): Promise<void> {
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
  t.failNext = 0;
  t.tailerLag = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (t.failNext > 0) {
        t.failNext -= 1;
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
  t.homepageHtml = '<html><body>no tracker here</body></html>';
  scripts = {};
  t.checkRequests = [];
  inFlight = 0;
  maxInFlight = 0;
  homepage = createServer(async (req, res) => {
    if (/install check/.test(req.headers['user-agent'] ?? '')) {
      t.checkRequests.push(req.url ?? '');
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      // a homepage takes a moment: checks that overlap are seen overlapping
      if (req.url === '/') await new Promise((r) => setTimeout(r, 15));
      inFlight -= 1;
    }
    const script = scripts[req.url ?? ''];
    if (script !== undefined)
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(Buffer.from(script, 'latin1'));
    else res.writeHead(200, { 'content-type': 'text/html' }).end(t.homepageHtml);
  });
  receiverPort = await listen(receiver);
  homepagePort = await listen(homepage);
  site = await createSite(control.ctl, { domain: 'example.com' });
  const deps = alertsDeps({ FOOTFALL_BASE_URL: 'https://footfall.example.com' });
  alerts = new Alerts(deps);
}
export let receiverPort: number;
export let homepagePort: number;

async function tearDown(): Promise<void> {
  await alerts.stop();
  await engine.close();
  await control.cleanup();
  await new Promise((r) => receiver.close(r));
  await new Promise((r) => homepage.close(r));
}

/** Replaces the alerts under test with ones made with `env` added to the configuration. */
export async function reconfigure(env: Record<string, string>): Promise<void> {
  await alerts.stop();
  alerts = new Alerts(alertsDeps(env));
}

/** Loads `records` as the tailer loads one batch of a new stream. */
export async function load(records: ReturnType<typeof ev>[]): Promise<void> {
  stream += 1;
  await engine.applyBatch({ records: onStream(`s${stream}`, records) });
}

export const DAY = 86_400_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** Visits of `count` different visitors at `at` (one pageview each), loaded as the tailer loads them. */
export async function visits(at: number, count: number, prefix = 'v'): Promise<void> {
  await load(
    Array.from({ length: count }, (_, i) =>
      ev(iso(at + i * 1000), { site: site.id, visitor: `${prefix}${at}-${i}` }),
    ),
  );
}

export async function webhook(kinds?: string[]) {
  const made = await createAlertDestination(control.ctl, site.id, {
    channel: 'webhook',
    target: `http://127.0.0.1:${receiverPort}/hook/secret-path-token`,
    host: `127.0.0.1:${receiverPort}`,
    kinds: (kinds ?? ['tracking_stopped', 'busy_day', 'payment', 'disk_filling', 'health']) as never,
  });
  return made;
}

export const kinds = () => received.map((r) => `${r.message.kind}:${r.message.state ?? '-'}`);

export function alertsDeps(env: Record<string, string>): QueryDeps {
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
          return t.tailerLag;
        },
      },
    },
  } as unknown as QueryDeps;
}
