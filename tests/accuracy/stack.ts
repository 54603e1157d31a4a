import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '@footfall/clickhouse-test-server';
import { loadConfig } from '@footfall/config';
import { createFunnel, createGoal, createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { startFootfall, tempDir } from '../support/footfall.ts';
import { addDays, localDate } from '../support/zones.ts';
import type { SentEvent } from './model.ts';
import { BROWSERS } from './people.ts';
import type { PlannedEvent, SiteSpec } from './script.ts';

export const API_TOKEN = 'accuracy-suite-token-0123456789';

/** The sites of the run: three zones whose days differ, one of them cookieless. */
const SITES = {
  kiritimati: { domain: 'shop.example.com', timezone: 'Pacific/Kiritimati', cookieless: false },
  losAngeles: { domain: 'blog.example.org', timezone: 'America/Los_Angeles', cookieless: false },
  utc: { domain: 'news.example.net', timezone: 'UTC', cookieless: true },
  bulk: { domain: 'bulk.example.com', timezone: 'UTC', cookieless: false },
  sentinel: { domain: 'sentinel.example.com', timezone: 'UTC', cookieless: false },
} as const;
export type SiteName = keyof typeof SITES;

/**
 * `footfall start` on a fresh data directory whose sites were created beforehand, with the API
 * token, no rate limits (every scripted visitor comes from 127.0.0.1) and `X-Real-IP` trusted,
 * so each visitor has its own address for the cookieless hash.
 */
/** The goals every scripted site has, counted by the model (expected-goals.ts). */
export const ACCURACY_GOALS = [
  { name: 'Pricing', kind: 'page', match: '/pricing', prop: null },
  { name: 'Blog', kind: 'page', match: '/blog*', prop: null },
  { name: 'Signed up', kind: 'event', match: 'Signup', prop: null },
  { name: 'Bought', kind: 'event', match: 'Purchase', prop: null },
] as const;

/** The funnels every scripted site has: one within a visit, one within a day. */
export const ACCURACY_FUNNELS = [
  {
    name: 'Home to pricing',
    steps: [
      { kind: 'page', match: '/', prop: null },
      { kind: 'page', match: '/pricing', prop: null },
    ],
    withinDays: null,
  },
  {
    name: 'Pricing to purchase',
    steps: [
      { kind: 'page', match: '/pricing', prop: null },
      { kind: 'event', match: 'Purchase', prop: null },
    ],
    withinDays: 1,
  },
] as const;

/** The analytics engine a stack runs on: ClickHouse is the chdb test server, started here. */
export type AccuracyEngine = 'duckdb' | 'clickhouse';

export async function startAccuracyStack(options: { engine?: AccuracyEngine } = {}) {
  const root = tempDir('ff-accuracy-');
  const dataDir = join(root, 'data');
  const clickhouse =
    options.engine === 'clickhouse'
      ? await startTestServer({ path: join(root, 'clickhouse'), port: 0 })
      : undefined;
  const env: Record<string, string> = {
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_API_TOKEN: API_TOKEN,
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    FOOTFALL_TRUST_PROXY: 'header:X-Real-IP',
    ...(clickhouse && { FOOTFALL_ENGINE: 'clickhouse', FOOTFALL_CLICKHOUSE_URL: clickhouse.url }),
  };
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const sites = {} as Record<SiteName, SiteSpec>;
  for (const [name, fields] of Object.entries(SITES) as [SiteName, (typeof SITES)[SiteName]][]) {
    const site = await createSite(control, fields);
    for (const goal of ACCURACY_GOALS) await createGoal(control, site.id, goal);
    for (const funnel of ACCURACY_FUNNELS)
      await createFunnel(control, site.id, { ...funnel, steps: [...funnel.steps] });
    sites[name] = {
      id: site.id,
      domain: site.domain,
      timezone: site.timezone,
      cookieless: site.cookieless,
      proxyKey: site.proxyKey,
    };
  }
  await control.close();
  const ff = await startFootfall(env);
  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${API_TOKEN}` }) =>
    fetch(`${ff.url}/api/v1${path}`, { headers, signal: AbortSignal.timeout(15_000) });
  // an engine on a server opens after the service listens: reports answer 503 until then
  for (let i = 0; ; i++) {
    const health = (await (await get('/health')).json()) as { engine?: { ready: boolean } };
    if (health.engine?.ready) break;
    if (i > 300) throw new Error('the analytics engine did not open within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: ff.url,
    sites,
    /** GET under /api/v1 with the API token (or the headers given) */
    get,
    /** GET a JSON body, throwing with the body when the status is not 200 */
    async json<T>(path: string): Promise<T> {
      const res = await get(path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    output: ff.output,
    async stop() {
      await ff.stop();
      await clickhouse?.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
export type AccuracyStack = Awaited<ReturnType<typeof startAccuracyStack>>;

let eventCounter = 0;

/**
 * Sends one planned event through POST /api/e as a browser would; resolves with its time bounds.
 * A retry passes the first send's event id, as the tracker does.
 */
async function sendOne(url: string, e: PlannedEvent, id?: string): Promise<SentEvent> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': e.persona.browser.ua,
    'x-real-ip': e.persona.ip,
    ...(e.persona.acceptLanguage === undefined ? {} : { 'accept-language': e.persona.acceptLanguage }),
    ...e.persona.headers,
  };
  const body: Record<string, unknown> = {
    s: e.site.id,
    k: e.kind,
    u: e.url,
    r: e.referrer,
    i: id ?? `acc${(++eventCounter).toString().padStart(6, '0')}${Math.random().toString(36).slice(2, 10)}`,
    v: e.cookieId,
    w: e.persona.browser.device === 'desktop' ? 1920 : 390,
    h: e.persona.browser.device === 'desktop' ? 1080 : 844,
  };
  if (e.name !== null) body.n = e.name;
  if (e.engagedMs !== null) body.e = e.engagedMs;
  if (e.scroll !== null) body.d = e.scroll;
  if (e.props !== null) body.p = e.props;
  if (e.vitals !== null) body.m = e.vitals;
  const sentAt = Date.now();
  const a = Math.max(0, sentAt - e.at);
  const res = await fetch(`${url}/api/e`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...body, a }),
    signal: AbortSignal.timeout(15_000),
  });
  const answeredAt = Date.now();
  if (res.status !== 202)
    throw new Error(`POST /api/e ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
  return { ...e, id: body.i as string, lo: sentAt - a, hi: answeredAt - a };
}

/**
 * Sends events with a few requests in flight at a time; every one must be accepted (202). Events
 * that carry an `id` (already sent) are sent again with it: the tracker's retry of an event whose
 * answer it never saw, with the same id and event time.
 */
export async function sendAll(
  url: string,
  events: readonly (PlannedEvent & { id?: string })[],
  parallel = 12,
): Promise<SentEvent[]> {
  const out: SentEvent[] = new Array(events.length);
  let next = 0;
  const worker = async () => {
    while (next < events.length) {
      const i = next++;
      const e = events[i] as PlannedEvent & { id?: string };
      out[i] = await sendOne(url, e, e.id);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return out;
}

/**
 * Waits until the query service has applied everything sent so far: sends one pageview to the
 * sentinel site after every other event was answered (so it sits after them in the write-ahead
 * log, which the tailer applies in order) and polls until the sentinel's report shows it.
 */
export async function waitForTailer(stack: AccuracyStack, timeoutMs = 30_000): Promise<void> {
  const site = stack.sites.sentinel;
  const count = (sentinels.get(stack.url) ?? 0) + 1;
  sentinels.set(stack.url, count);
  const [sent] = await sendAll(stack.url, [sentinelEvent(site, count)]);
  const day = localDate((sent as SentEvent).lo, 'UTC');
  const path = `/sites/${site.id}/report?from=${addDays(day, -1)}&to=${day}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const report = await stack.json<{ kpis: { pageviews: number } }>(path);
    if (report.kpis.pageviews >= count) return;
    if (Date.now() > deadline)
      throw new Error(`the tailer did not apply the sentinel within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Sentinels sent per stack (by URL): the n-th wait waits for the n-th sentinel. */
const sentinels = new Map<string, number>();

function sentinelEvent(site: SiteSpec, n: number): PlannedEvent {
  return {
    site,
    persona: {
      name: 'sentinel',
      browser: BROWSERS.firefoxLinux,
      language: null,
      ip: '192.0.2.250',
    },
    counted: true,
    kind: 'pv',
    at: Date.now(),
    url: `https://${site.domain}/`,
    referrer: '',
    path: '/',
    name: null,
    engagedMs: null,
    scroll: null,
    props: null,
    vitals: null,
    cookieId: `sentinel-${String(n).padStart(4, '0')}`,
    source: { channel: 'Direct', referrer: null, source: null, medium: null, campaign: null },
  };
}
