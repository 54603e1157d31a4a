/**
 * The real Footfall stack for the tracker browser tests: `footfall query` and `footfall ingest` as
 * two processes on one temporary data directory, the gateway on a fixed port (so it can be stopped
 * and started again while pages keep its address), three sites created before the start, and
 * readers of what was STORED: the API (recent feed, journey, report) and, with the query service
 * stopped, analytics.duckdb itself.
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb, type Site } from '@footfall/control';
import { dataPaths, footfallVersion, prepareInstance } from '@footfall/instance';
import { createConnection } from '@footfall/payments';
import type { Journey, LiveEvent } from '../../apps/query/src/engine/engine.ts';
import type { Report } from '../../apps/query/src/engine/report-types.ts';
import { type RunningFootfall, runFootfall, tempDir } from '../support/footfall.ts';

export type { Journey, LiveEvent, Report };

/** The host names test pages are served on; Chromium resolves every `*.localhost` to loopback. */
export const COOKIE_DOMAIN = 'shop.localhost';
export const COOKIELESS_DOMAIN = 'quiet.localhost';
/** A cookie-mode site with the consent bar on (default text and colours). */
export const CONSENT_DOMAIN = 'ask.localhost';

const API_TOKEN = 'tracker-tests-read-token';

/** One stored event id as read straight from analytics.duckdb, with how many rows hold it. */
export interface StoredRow {
  site: string;
  id: string;
  kind: string;
  copies: number;
  /** The Web Vitals columns (null unless a `vt` event). */
  vitals: { lcp: number | null; fcp: number | null; ttfb: number | null };
}

export interface RealStack {
  /** `http://127.0.0.1:<port>`: the real gateway's front door (scripts, `/api/e`, the API). */
  readonly gatewayUrl: string;
  /**
   * A cookie-mode site on COOKIE_DOMAIN (with a Paddle connection), a cookieless one on
   * COOKIELESS_DOMAIN, one with the consent bar.
   */
  readonly sites: { cookie: Site; cookieless: Site; consent: Site };
  /** The recent feed of a site (pageviews and custom events of two days, newest first, up to 500). */
  feed(siteId: string): Promise<LiveEvent[]>;
  /** Every stored event of one visitor, engagement and vitals included, oldest first. */
  journey(siteId: string, visitor: string): Promise<LiveEvent[]>;
  /** The report of the last 30 days with `f` filters such as `page:/x`. */
  report(siteId: string, filters?: string[]): Promise<Report>;
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  /**
   * Stops the query service, reads every stored event id with its number of copies from
   * analytics.duckdb (read-only), and starts the service again.
   */
  storedRows(): Promise<StoredRow[]>;
  close(): Promise<void>;
}

/** A port nobody listens on now, so the gateway can be started on it again and again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts the real stack; `close()` stops both processes and removes the data directory. */
export async function startRealStack(): Promise<RealStack> {
  const root = tempDir('ff-tracker-');
  const port = await freePort();
  const env = {
    FOOTFALL_DATA_DIR: join(root, 'data'),
    FOOTFALL_ADDR: `127.0.0.1:${port}`,
    FOOTFALL_API_TOKEN: API_TOKEN,
    // Every page of the suite comes from one address, far more often than a person would.
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    FOOTFALL_DRAIN_SECONDS: '2',
  };
  const instance = prepareInstance(loadConfig(env));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const sites = {
    cookie: await createSite(control, { domain: COOKIE_DOMAIN }),
    cookieless: await createSite(control, { domain: COOKIELESS_DOMAIN, cookieless: true }),
    consent: await createSite(control, { domain: CONSENT_DOMAIN, consentBar: true }),
  };
  // the cookie site sells through Paddle: its tracker carries the Paddle.js add-on
  createConnection(control, { siteId: sites.cookie.id, provider: 'paddle', setup: 'manual' });
  await control.close();

  let query: RunningFootfall | undefined;
  let gateway: RunningFootfall | undefined;
  const startQuery = async () => {
    query = runFootfall(['query', '--no-setup-link'], env);
    await query.waitForOutput(/"query service listening"/);
  };
  const startGateway = async () => {
    gateway = runFootfall(['ingest'], env);
    await gateway.waitForOutput(/"ingest gateway listening"/);
  };
  // A clean exit matters: the down/up test relies on the gateway having drained, not crashed.
  const stopped = async (child: RunningFootfall | undefined) => {
    await child?.stop();
    const exit = await child?.exited;
    if (exit && exit.code !== 0) throw new Error(`footfall exited with ${exit.code}:\n${child?.output()}`);
  };
  try {
    await Promise.all([startQuery(), startGateway()]);
  } catch (e) {
    await Promise.all([query?.stop(), gateway?.stop()]);
    rmSync(root, { recursive: true, force: true });
    throw e;
  }

  const gatewayUrl = `http://127.0.0.1:${port}`;
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${gatewayUrl}/api/v1${path}`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  return {
    gatewayUrl,
    sites,
    feed: async (siteId) => (await api<{ events: LiveEvent[] }>(`/sites/${siteId}/events?limit=500`)).events,
    async journey(siteId, visitor) {
      const { visits } = await api<Journey>(`/sites/${siteId}/journey/${visitor}`);
      return visits.toReversed().flatMap((visit) => visit.events);
    },
    report: (siteId, filters = []) =>
      api<Report>(
        `/sites/${siteId}/report${filters.length ? '?' : ''}${filters.map((f) => `f=${encodeURIComponent(f)}`).join('&')}`,
      ),
    stopGateway: () => stopped(gateway),
    startGateway,
    async storedRows() {
      await stopped(query);
      try {
        const db = await DuckDBInstance.create(dataPaths(env.FOOTFALL_DATA_DIR).analyticsDb, {
          access_mode: 'READ_ONLY',
        });
        const connection = await db.connect();
        const reader = await connection.runAndReadAll(
          `SELECT site, id, kind, count(*)::INTEGER AS copies,
            any_value(lcp) AS lcp, any_value(fcp) AS fcp, any_value(ttfb) AS ttfb
          FROM events GROUP BY site, id, kind`,
        );
        const number = (v: unknown) => (typeof v === 'number' ? v : null);
        const rows = reader.getRowObjectsJS().map((row) => ({
          site: String(row.site),
          id: String(row.id),
          kind: String(row.kind),
          copies: Number(row.copies),
          vitals: { lcp: number(row.lcp), fcp: number(row.fcp), ttfb: number(row.ttfb) },
        }));
        connection.closeSync();
        db.closeSync();
        return rows;
      } finally {
        await startQuery();
      }
    },
    async close() {
      await Promise.all([query?.stop(), gateway?.stop()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
