import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { visitorKey } from '../support/visitor-key.ts';
import { Cluster } from './cluster.ts';
import { planEvents, seeded } from './plan.ts';
import { settledTotals } from './report.ts';
import { Ledger, SenderPool, sendEvent, sleep } from './senders.ts';
import { readStored, walEnds, walEventCopies } from './stored.ts';
import { expectedVisits, visitProblems } from './visits.ts';

/**
 * The exactly-once proof (issue "Exactly once (in CI)"): the gateway and the query service run as
 * separate processes on one data dir while 48 senders post 22,000 events. The gateway is SIGKILLed
 * mid-load, the query service is killed while behind the WAL, both are stopped with SIGTERM, all
 * restarted; every unacknowledged event and a tenth of the acknowledged ones are resent with the
 * same ids. Then analytics.duckdb must hold every event once and visits the 30-minute rule gives.
 */
const TOTAL = 22_000;
const SENDERS = 48;
const SEED = 7;
const MINUTE = 60_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sum = (m: Map<string, bigint>) => [...m.values()].reduce((a, b) => a + b, 0n);
const firstFew = (ids: Iterable<string>) => [...ids].slice(0, 10).join(', ');

describe('exactly once through crashes and restarts', () => {
  it('stores every event exactly once, with consistent visits, after the gateway and the query service are killed, stopped, restarted and sent duplicates', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.destroy());
    onTestFailed(() => console.error(cluster.outputTail()));
    const site = cluster.site;
    const events = planEvents({ total: TOTAL, now: Date.now(), seed: SEED });
    const ledger = new Ledger(events);
    const pool = new SenderPool((e) => sendEvent(cluster.url, site.id, site.domain, e), ledger, SENDERS);
    cleanups.push(() => pool.stop());
    const n = events.length;

    // 1. load both; SIGKILL the gateway mid-load; restart it on the same address; resend what failed
    await Promise.all([cluster.start('ingest'), cluster.start('query')]);
    pool.push(events);
    pool.start();
    await pool.untilAcked(Math.floor(n * 0.15), 2 * MINUTE);
    await cluster.signal('ingest', 'SIGKILL');
    await cluster.start('ingest');
    expect(ledger.everFailed.size, 'sends failed while the gateway was down').toBeGreaterThan(0);
    pool.push(ledger.unackedEvents());

    // 2. pause the query service so a backlog builds, then kill it while it works through it
    await pool.untilAcked(Math.floor(n * 0.35), 2 * MINUTE);
    cluster.pause('query');
    const ackedAtPause = ledger.acked.size;
    await pool.untilAcked(ackedAtPause + 3000, 2 * MINUTE);
    cluster.resume('query');
    await sleep(50);
    await cluster.signal('query', 'SIGKILL');
    const behind = await readStored(cluster.analyticsDb, site.id);
    const written = await walEnds(cluster.walRoot);
    expect(sum(behind.positions), 'the query service was behind the WAL when killed').toBeLessThan(
      sum(written),
    );
    await cluster.start('query');

    // 3. SIGTERM both mid-load: each drains and exits 0; restart both; the rest of the load
    await pool.untilAcked(Math.floor(n * 0.7), 2 * MINUTE);
    const codes = await Promise.all([
      cluster.signal('ingest', 'SIGTERM'),
      cluster.signal('query', 'SIGTERM'),
    ]);
    expect(codes, 'exit codes after SIGTERM').toEqual([0, 0]);
    await Promise.all([cluster.start('ingest'), cluster.start('query')]);
    await pool.idle(2 * MINUTE);

    // 4. resend every unacknowledged event and a tenth of the acknowledged ones, same ids
    const random = seeded(SEED + 1);
    const again = events.filter((e) => ledger.acked.has(e.id) && random() < 0.1);
    for (const e of again) ledger.resentAcked.add(e.id);
    const unackedBefore = ledger.unacked.size;
    pool.push([...ledger.unackedEvents(), ...again]);
    await pool.idle(2 * MINUTE);
    for (let round = 0; round < 5 && ledger.unacked.size > 0; round++) {
      pool.push(ledger.unackedEvents());
      await pool.idle(MINUTE);
    }
    await pool.stop();
    expect(ledger.unacked.size, `never acknowledged: ${firstFew(ledger.unacked)}`).toBe(0);
    expect(ledger.acked.size).toBe(n);
    console.info(
      `exactly-once load: ${n} events, ${ledger.sends} sends, ${ledger.everFailed.size} failed at least once ` +
        `(${unackedBefore} still unacknowledged before the final resend), ${again.length} acknowledged resent; ` +
        `failures ${JSON.stringify(Object.fromEntries(ledger.failures))}; ` +
        `query killed ${sum(written) - sum(behind.positions)} records behind`,
    );

    // the report settles at every event, and the query service has applied the whole WAL
    const pageviews = events.filter((e) => e.kind === 'pv').length;
    const { totals, stored, ends } = await settleAndRead(cluster, n);
    expect(Object.fromEntries(stored.positions), 'applied positions').toEqual(Object.fromEntries(ends));

    // the WAL really holds duplicates: every acknowledged resend, and failed sends that had been written
    const inWal = await walEventCopies(cluster.walRoot);
    const notInWal = events.filter((e) => !inWal.has(e.id)).map((e) => e.id);
    expect(notInWal, `acknowledged but not in the WAL: ${firstFew(notInWal)}`).toHaveLength(0);
    const resendCopies = [...ledger.resentAcked].filter((id) => (inWal.get(id) ?? 0) >= 2);
    expect(resendCopies.length, 'acknowledged resends appended again').toBe(ledger.resentAcked.size);
    const failedButWritten = [...ledger.everFailed].filter((id) => (inWal.get(id) ?? 0) >= 2).length;
    console.info(
      `WAL streams ${JSON.stringify(Object.fromEntries([...ends].map(([s, q]) => [s, String(q)])))}; ` +
        `${failedButWritten} events were written although their send failed, then resent`,
    );

    // every acknowledged event stored exactly once, and nothing else
    const copies = new Map<string, number>();
    for (const e of stored.events) copies.set(e.id, (copies.get(e.id) ?? 0) + 1);
    const duplicated = [...copies].filter(([, c]) => c > 1).map(([id]) => id);
    const missing = events.filter((e) => !copies.has(e.id)).map((e) => e.id);
    const extra = [...copies.keys()].filter((id) => !ledger.events.has(id));
    expect(duplicated, `stored more than once: ${firstFew(duplicated)}`).toHaveLength(0);
    expect(missing, `acknowledged but not stored: ${firstFew(missing)}`).toHaveLength(0);
    expect(extra, `stored but never sent: ${firstFew(extra)}`).toHaveLength(0);
    expect(stored.events).toHaveLength(n);
    for (const e of stored.events) {
      const sent = ledger.events.get(e.id)!;
      if (e.kind !== sent.kind || e.visitorKey !== visitorKey(sent.visitor))
        throw new Error(`event ${e.id} stored as ${e.kind} of visitor key ${e.visitorKey}`);
    }

    // visits: every event in the visit the 30-minute rule gives, counts right, none overlapping
    const problems = visitProblems(stored.events, stored.visits);
    expect(problems.slice(0, 10), `${problems.length} visit problems`).toEqual([]);

    // the report API, read before the stop, counted each of them once
    expect(totals.pageviews, 'pageviews in the report').toBe(pageviews);
    expect(totals.customEvents, 'custom events in the report').toBe(n - pageviews);

    const visits = expectedVisits(stored.events);
    expect(totals.visits, 'visits in the report').toBe(visits.length);
    expect(totals.visitors, 'visitors in the report').toBe(new Set(visits.map((v) => v.visitor)).size);
    const bounces = visits.filter((v) => v.pageviews === 1 && v.events === 0).length;
    expect(totals.bounceRate, 'bounce rate: visits of one pageview and no custom event').toBeCloseTo(
      bounces / visits.length,
      9,
    );

    expect(await cluster.signal('ingest', 'SIGTERM'), 'gateway exit code').toBe(0);
    // crashes are recovered from, not errors: no corrupt stream, no failed batch, no torn-tail surprise
    const errors = [...cluster.logs('ingest'), ...cluster.logs('query')].filter((l) => Number(l.level) >= 50);
    expect(errors.map((l) => l.msg)).toEqual([]);
  }, 300_000);
});

/**
 * Waits until the report counts all `n` events and stops changing, stops the query service and
 * reads what it stored. Settled is not always the very end of the WAL (duplicates may be left to
 * read): then it runs the query service again, at most three more times.
 */
async function settleAndRead(cluster: Cluster, n: number) {
  for (let round = 0; ; round++) {
    if (round > 0) await cluster.start('query');
    const totals = await settledTotals(cluster, n, 2 * MINUTE);
    expect(await cluster.signal('query', 'SIGTERM'), 'query service exit code').toBe(0);
    const stored = await readStored(cluster.analyticsDb, cluster.site.id);
    const ends = await walEnds(cluster.walRoot);
    if (sum(stored.positions) >= sum(ends) || round === 3) return { totals, stored, ends };
  }
}
