/**
 * Demo data for Footfall: creates a site in a data directory and writes about N realistic,
 * deterministic events for it into a WAL stream, exactly as the ingest gateway would have. The
 * query service loads them into DuckDB when it starts (`footfall query` or `footfall start`).
 *
 * CLI (see bench/README.md):
 *   node --import tsx bench/demo-data.ts --data-dir ./data --events 1000000
 */
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '@footfall/config';
import { createSite, listSites, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { encodeWalRecord, type WalEvent } from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import { demoTraffic } from './demo-traffic.ts';

export interface DemoDataOptions {
  dataDir: string;
  /** about this many events (pageviews, engagement, vitals and custom events) */
  events: number;
  /** the site's domain; created when missing */
  domain?: string;
  timeZone?: string;
  /** days of history; 400 so a year-on-year comparison of the last month has data */
  days?: number;
  /** the newest event is before this instant; default now */
  endMs?: number;
  seed?: number;
  /** the WAL stream written (a directory under data/wal) */
  stream?: string;
  onProgress?: (written: number) => void;
}

export interface DemoDataSummary {
  siteId: string;
  domain: string;
  timeZone: string;
  events: number;
  pageviews: number;
  /** id and time of the newest pageview or custom event (the last one in the stream) */
  last: { id: string; at: number } | null;
  firstAt: number;
  walBytes: number;
  walDir: string;
}

const BATCH = 20_000;

/**
 * Writes the demo events into `<dataDir>/wal/<stream>` (fsynced in large group commits) and
 * makes sure the site exists in the control database. The query service must not be tailing
 * the same stream name from another writer: the WAL's lock refuses a second writer.
 */
export async function writeDemoData(o: DemoDataOptions): Promise<DemoDataSummary> {
  const domain = o.domain ?? 'demo.footfall.dev';
  const timeZone = o.timeZone ?? 'Europe/Berlin';
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: o.dataDir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  let site = listSites(control).find((s) => s.domain === domain);
  site ??= await createSite(control, { domain, timezone: timeZone });
  await control.close();

  const walDir = join(instance.paths.wal, o.stream ?? 'demo');
  const wal = await openWalWriter({ dir: walDir });
  const summary: DemoDataSummary = {
    siteId: site.id,
    domain: site.domain,
    timeZone: site.timezone,
    events: 0,
    pageviews: 0,
    last: null,
    firstAt: Number.NaN,
    walBytes: 0,
    walDir,
  };
  let pending: Uint8Array[] = [];
  let writing: Promise<unknown> = Promise.resolve();
  const flush = async () => {
    const payloads = pending;
    pending = [];
    // encode the next batch while this one is written
    await writing;
    writing = wal.appendMany(payloads);
  };
  try {
    for (const day of demoTraffic({
      events: o.events,
      siteId: site.id,
      host: site.domain,
      timeZone: site.timezone,
      endMs: o.endMs ?? Date.now(),
      days: o.days ?? 400,
      seed: o.seed ?? 1,
    })) {
      for (const event of day) {
        pending.push(encodeWalRecord(event));
        note(summary, event);
        if (pending.length >= BATCH) {
          await flush();
          o.onProgress?.(summary.events);
        }
      }
    }
    if (pending.length > 0) await flush();
    await writing;
  } finally {
    await wal.close();
  }
  summary.walBytes = await dirBytes(walDir);
  return summary;
}

function note(s: DemoDataSummary, e: WalEvent): void {
  if (s.events === 0) s.firstAt = e.at;
  s.events++;
  if (e.kind === 'pv') s.pageviews++;
  if (e.kind === 'pv' || e.kind === 'ev') s.last = { id: e.id, at: e.at };
}

/** Total size of the files in a directory. */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += statSync(join(dir, name)).size;
  return total;
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string', default: './data' },
      events: { type: 'string', default: '100000' },
      domain: { type: 'string' },
      'time-zone': { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  const dataDir = resolve(values['data-dir']);
  const started = performance.now();
  const s = await writeDemoData({
    dataDir,
    events: Number(values.events),
    ...(values.domain ? { domain: values.domain } : {}),
    ...(values['time-zone'] ? { timeZone: values['time-zone'] } : {}),
    ...(values.days ? { days: Number(values.days) } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
    onProgress: (n) => process.stderr.write(`\r${n.toLocaleString('en')} events`),
  });
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write('\n');
  console.log(
    `wrote ${s.events.toLocaleString('en')} events (${s.pageviews.toLocaleString('en')} pageviews) for ${s.domain} ` +
      `(site ${s.siteId}, ${s.timeZone}) into ${s.walDir} in ${seconds.toFixed(1)} s, ` +
      `${(s.walBytes / s.events).toFixed(0)} WAL bytes per event.\n` +
      `Start Footfall on ${dataDir} (footfall start or footfall query) to load them.`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli();
