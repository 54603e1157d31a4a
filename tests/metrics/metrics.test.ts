import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, createOwner } from '../dashboard/harness.ts';
import { startFootfall } from '../support/footfall.ts';

/**
 * `/metrics` through the real `footfall start` (gateway and query service), read by a Prometheus
 * text-format parser: bearer-only with FOOTFALL_METRICS_TOKEN, each process's series labelled,
 * counters that follow real traffic, every metric documented in docs/metrics.md, and every
 * expression of the Grafana dashboard naming a metric the service exports.
 */
const TOKEN = 'metrics-token-for-tests-0123456789';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
  }[];
}

let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let site: string;
let apiKey: string;
/** the text of the last scrape */
let text = '';

async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${footfall.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  text = await res.text();
  const families = parsePrometheusTextFormat(text) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

/**
 * A histogram's observation count for series whose labels include `labels`, from the text (the
 * parser keeps only the buckets of a histogram).
 */
function histogramCount(name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const have = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[2]);
  }
  return total;
}

/** The value of a series whose labels include `labels` (0 when there is none). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  const series = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return series ? Number(series.value ?? series.count) : 0;
}

const post = (body: unknown, ua = BROWSER_UA) =>
  fetch(`${footfall.url}/api/e`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': ua },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  footfall = await startFootfall({ FOOTFALL_METRICS_TOKEN: TOKEN });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  site = (
    await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'metrics.localhost' })
  ).site.id;
  apiKey = (await owner.call<{ key: string }>('POST', '/api/v1/api-keys', { name: 'prometheus' })).key;
}, 60_000);
afterAll(() => footfall?.stop());

describe('/metrics', () => {
  it('answers only with FOOTFALL_METRICS_TOKEN when it is set', async () => {
    const none = await fetch(`${footfall.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    const wrong = await fetch(`${footfall.url}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(wrong.status).toBe(401);
    await scrape();
  });

  it('counts what the gateway accepted, dropped as bots and rejected by reason, and what the writer applied', async () => {
    const before = await scrape();
    for (const v of ['visitor-00001', 'visitor-00002']) {
      expect((await post({ s: site, k: 'pv', u: 'http://metrics.localhost/', v })).status).toBe(202);
    }
    expect((await post({ s: site, k: 'pv', u: 'http://metrics.localhost/' }, 'curl/8.5.0')).status).toBe(202);
    expect((await post({ s: site, k: 'zz' })).status).toBe(400);
    const webhook = await fetch(`${footfall.url}/webhooks/stripe/no-such-connection`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(webhook.status).toBe(404);
    // the writer applies them (visible in the report), and then in the applied count
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${footfall.url}/api/v1/sites/${site}/report`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (((await r.json()) as { kpis: { visitors: number } }).kpis.visitors === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('footfall_events_accepted_total', { process: 'ingest' })).toBe(2);
    expect(delta('footfall_events_dropped_bots_total', { kind: 'list' })).toBe(1);
    expect(delta('footfall_events_rejected_total', { reason: 'invalid_body' })).toBe(1);
    expect(delta('footfall_webhooks_received_total', { provider: 'stripe', status: '404' })).toBe(1);
    expect(delta('footfall_wal_records_applied_total')).toBeGreaterThanOrEqual(2);
    expect(value(after, 'footfall_ingest_accepting')).toBe(1);
    // the report's latency is recorded under its route, never under a site id
    expect(after.get('footfall_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(
      histogramCount('footfall_http_request_duration_seconds', {
        route: '/api/v1/sites/:site/report',
        status: '200',
        process: 'query',
      }),
    ).toBeGreaterThan(0);
    expect(text).not.toContain(site);
    // the same report again is a cache hit
    for (let i = 0; i < 2; i++) {
      await fetch(`${footfall.url}/api/v1/sites/${site}/report?from=2026-01-01&to=2026-01-31`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
    }
    expect(value(await scrape(), 'footfall_report_cache_lookups_total', { result: 'hit' })).toBeGreaterThan(
      0,
    );
  });

  it("labels each process's series, and measures both processes' memory and event-loop lag", async () => {
    const families = await scrape();
    for (const name of ['process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
      const processes = families
        .get(name)!
        .metrics.map((m) => m.labels?.process)
        .sort();
      expect(processes, name).toEqual(['ingest', 'query']);
    }
    expect(value(families, 'footfall_disk_free_bytes')).toBeGreaterThan(0);
    expect(value(families, 'footfall_database_bytes', { database: 'control' })).toBeGreaterThan(0);
    expect(value(families, 'footfall_wal_bytes')).toBeGreaterThan(0);
    // names follow Prometheus conventions: counters end in _total, units are base units
    for (const f of families.values()) {
      if (!f.name.startsWith('footfall_')) continue;
      if (f.type === 'COUNTER') expect(f.name, f.name).toMatch(/_total$/);
      expect(f.name).toMatch(/^footfall_[a-z0-9_]+$/);
      expect(f.help.length, f.name).toBeGreaterThan(10);
    }
  });

  it('passes promtool check metrics: base units, counters ending in _total, help on every metric', async () => {
    await scrape();
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(checked.error).toBeUndefined();
    expect(`${checked.stdout}${checked.stderr}`.trim()).toBe('');
    expect(checked.status).toBe(0);
  });

  it('documents every footfall_ metric in docs/metrics.md, and the Grafana dashboard asks only for exported ones', async () => {
    const families = await scrape();
    const exported = [...families.keys()];
    const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(footfall_[a-z0-9_]+)`/gm)].map((m) => m[1]!);
    expect(documented.sort()).toEqual(exported.filter((n) => n.startsWith('footfall_')).sort());
    const dashboard = JSON.parse(
      readFileSync(new URL('../../infra/grafana/footfall.json', import.meta.url), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const asked = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const names = expr.match(/\b(?:footfall|process|nodejs)_[a-z0-9_]+/g) ?? [];
        expect(names.length, expr).toBeGreaterThan(0);
        for (const n of names) asked.add(n.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    const missing = [...asked].filter((n) => !families.has(n));
    expect(missing).toEqual([]);
  });
});
