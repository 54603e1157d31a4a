import type { DuckDb, ReadOptions } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { filterSql } from './filters.ts';
import { periodScope } from './period-scope.ts';
import { Params } from './sql-params.ts';
import { instant, localMsSql, readTimePlan, type TimePlan } from './time-plan.ts';

/** The Core Web Vitals and the two that lead to them, as the tracker's `vt` events carry them. */
export const VITALS = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type Vital = (typeof VITALS)[number];

/**
 * Google's thresholds (web.dev/articles/vitals): at or under the first a sample is good, over the
 * second it is poor, between them it needs improvement. Milliseconds; CLS is a score.
 */
export const VITAL_THRESHOLDS: Record<Vital, readonly [number, number]> = {
  lcp: [2500, 4000],
  inp: [200, 500],
  cls: [0.1, 0.25],
  fcp: [1800, 3000],
  ttfb: [800, 1800],
};

export interface VitalSummary {
  unit: 'ms' | 'score';
  /** samples with this metric */
  samples: number;
  /** nearest-rank percentiles (the ⌈q·n⌉-th smallest sample); null without samples */
  p50: number | null;
  p75: number | null;
  p90: number | null;
  /** shares of the samples, 0..1, by Google's thresholds */
  good: number;
  needs_improvement: number;
  poor: number;
  thresholds: readonly [number, number];
}

/** One page or device: its samples and each metric's p75 (null without samples). */
export type VitalRow = { value: string; samples: number } & Record<Vital, number | null>;

export interface VitalsReport {
  /** `vt` events in the period (after filters) */
  samples: number;
  metrics: Record<Vital, VitalSummary>;
  /** the pages with the most samples, at most 50 */
  pages: VitalRow[];
  devices: VitalRow[];
  /** each local day of the period with samples: each metric's p75 */
  chart: ({ day: string; samples: number } & Record<Vital, number | null>)[];
}

const PAGE_LIMIT = 50;
const DAY = 86_400_000;

/** The `vt` events of the period, after filters (a filter keeps those of the visits it matches). */
function vitalsFrom(q: PeriodQuery, plan: TimePlan, p: Params): string {
  const s = p.add(q.site);
  const start = p.add(instant(plan.startMs));
  const end = p.add(instant(plan.endMs));
  const filtered =
    q.filters.length === 0
      ? ''
      : `AND session_id IN (SELECT session_id FROM sessions WHERE site = ${s} AND ${filterSql(q.filters, q.site, { start, end }, p)})`;
  return `FROM events WHERE site = ${s} AND kind = 'vt' AND ts >= ${start} AND ts < ${end} ${filtered}`;
}

const p75s = () => VITALS.map((v) => `quantile_disc(${v}, 0.75) AS ${v}`).join(', ');

/**
 * Web Vitals of a period from the tracker's `vt` events: each metric's p50, p75 and p90 and its
 * good / needs improvement / poor shares, and the p75s per page, per device and per local day.
 */
export async function readVitals(db: DuckDb, q: PeriodQuery, options: ReadOptions): Promise<VitalsReport> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  const summary = new Params();
  const from = vitalsFrom(q, plan, summary);
  const columns = VITALS.map((v) => {
    const [good, poor] = VITAL_THRESHOLDS[v];
    return `count(${v}) AS ${v}_n, quantile_disc(${v}, 0.5) AS ${v}_p50, quantile_disc(${v}, 0.75) AS ${v}_p75,
      quantile_disc(${v}, 0.9) AS ${v}_p90, count(*) FILTER (WHERE ${v} <= ${good}) AS ${v}_good,
      count(*) FILTER (WHERE ${v} > ${poor}) AS ${v}_poor`;
  }).join(', ');
  const [totals = {}] = await db.read(summary.query(`SELECT count(*) AS n, ${columns} ${from}`), options);
  const metrics = vitalSummaries(totals);
  const n = vitalOrNull;

  const rows = async (column: string, limit: number): Promise<VitalRow[]> => {
    const p = new Params();
    const f = vitalsFrom(q, plan, p);
    const found = await db.read(
      p.query(
        `SELECT ${column} AS value, count(*) AS samples, ${p75s()} ${f} GROUP BY ALL ORDER BY samples DESC, value LIMIT ${limit}`,
      ),
      options,
    );
    return found.map((r) => ({
      value: String(r['value']),
      samples: Number(r['samples']),
      ...(Object.fromEntries(VITALS.map((v) => [v, n(r[v])])) as Record<Vital, number | null>),
    }));
  };
  const chartParams = new Params();
  const chartFrom = vitalsFrom(q, plan, chartParams);
  const local = localMsSql('ts', plan, chartParams);
  const days = await db.read(
    chartParams.query(
      `SELECT (${local} // ${DAY})::BIGINT AS day, count(*) AS samples, ${p75s()} ${chartFrom} GROUP BY ALL ORDER BY day`,
    ),
    options,
  );
  return {
    samples: Number(totals['n'] ?? 0),
    metrics,
    pages: await rows('path', PAGE_LIMIT),
    devices: await rows('device', 10),
    chart: days.map((r) => ({
      day: new Date(Number(r['day']) * DAY).toISOString().slice(0, 10),
      samples: Number(r['samples']),
      ...(Object.fromEntries(VITALS.map((v) => [v, n(r[v])])) as Record<Vital, number | null>),
    })),
  };
}

/** Visits an AI assistant sent, per assistant. */
export interface AssistantRow {
  value: string | null;
  visitors: number;
  visits: number;
}

/**
 * The visits of the `AI Assistant` channel that started in the period and match the filters, per
 * assistant (ChatGPT, Perplexity...: the name the gateway recognised), most visitors first.
 */
export async function readAssistants(
  db: DuckDb,
  q: PeriodQuery & { limit: number },
  options: ReadOptions,
): Promise<AssistantRow[]> {
  const { p, site, start, end, where } = await periodScope(db, q, options);
  const rows = await db.read(
    p.query(`SELECT assistant AS value, count(DISTINCT visitor_key) AS visitors, count(*) AS visits
      FROM sessions
      WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end}
        AND channel = 'AI Assistant' AND ${where}
      GROUP BY assistant ORDER BY visitors DESC, visits DESC, value NULLS LAST LIMIT ${p.add(q.limit)}`),
    options,
  );
  return rows.map((r) => ({
    value: r['value'] === null ? null : String(r['value']),
    visitors: Number(r['visitors']),
    visits: Number(r['visits']),
  }));
}

/** A percentile as read: null without samples. */
export const vitalOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Each metric's summary from the totals row both engines read: per metric `<v>_n`, `<v>_good`,
 * `<v>_poor` and `<v>_p50`, `_p75`, `_p90` (null without samples).
 */
export function vitalSummaries(totals: Record<string, unknown>): Record<Vital, VitalSummary> {
  const n = vitalOrNull;
  return Object.fromEntries(
    VITALS.map((v) => {
      const samples = Number(totals[`${v}_n`] ?? 0);
      const good = Number(totals[`${v}_good`] ?? 0);
      const poor = Number(totals[`${v}_poor`] ?? 0);
      const share = (k: number) => (samples === 0 ? 0 : k / samples);
      return [
        v,
        {
          unit: v === 'cls' ? 'score' : 'ms',
          samples,
          p50: n(totals[`${v}_p50`]),
          p75: n(totals[`${v}_p75`]),
          p90: n(totals[`${v}_p90`]),
          good: share(good),
          needs_improvement: share(samples - good - poor),
          poor: share(poor),
          thresholds: VITAL_THRESHOLDS[v],
        } satisfies VitalSummary,
      ];
    }),
  ) as Record<Vital, VitalSummary>;
}
