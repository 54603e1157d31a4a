import type { Cluster } from './cluster.ts';
import { sleep } from './senders.ts';

/** The report numbers the exactly-once test compares with what was sent. */
export interface ReportTotals {
  pageviews: number;
  /** custom events, summed over the events breakdown */
  customEvents: number;
  visits: number;
  visitors: number;
  bounceRate: number;
}

interface ReportBody {
  kpis: { visitors: number; visits: number; pageviews: number; bounce_rate: number };
  breakdowns: { events: { value: string | null; events: number }[] };
}

/** The site's default report (the last 30 days) through the gateway, with every event name. */
export async function reportTotals(cluster: Cluster): Promise<ReportTotals> {
  const res = await cluster.api(`/api/v1/sites/${cluster.site.id}/report?limit=100`);
  if (res.status !== 200) throw new Error(`report answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as ReportBody;
  return {
    pageviews: body.kpis.pageviews,
    customEvents: body.breakdowns.events.reduce((sum, row) => sum + row.events, 0),
    visits: body.kpis.visits,
    visitors: body.kpis.visitors,
    bounceRate: body.kpis.bounce_rate,
  };
}

/**
 * Polls the report until it counts at least `events` events and two answers a second apart
 * agree, so the tailer has caught up with everything sent; throws with the last answer after
 * `timeoutMs`. A 503 (query service still starting) is retried.
 */
export async function settledTotals(
  cluster: Cluster,
  events: number,
  timeoutMs: number,
): Promise<ReportTotals> {
  const deadline = Date.now() + timeoutMs;
  let last: ReportTotals | undefined;
  for (;;) {
    let now: ReportTotals | undefined;
    try {
      now = await reportTotals(cluster);
    } catch {
      now = undefined;
    }
    const total = now === undefined ? 0 : now.pageviews + now.customEvents;
    if (now !== undefined && last !== undefined && total >= events && sameTotals(now, last)) return now;
    last = now;
    if (Date.now() > deadline)
      throw new Error(
        `the report did not settle at ${events} events within ${timeoutMs} ms; last: ${JSON.stringify(last)}`,
      );
    await sleep(1000);
  }
}

function sameTotals(a: ReportTotals, b: ReportTotals): boolean {
  return a.pageviews === b.pageviews && a.customEvents === b.customEvents && a.visits === b.visits;
}
