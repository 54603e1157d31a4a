import { api, type Schema, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

type Metric = 'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb';
const METRICS: { id: Metric; name: string; long: string }[] = [
  { id: 'lcp', name: 'LCP', long: 'Largest Contentful Paint' },
  { id: 'inp', name: 'INP', long: 'Interaction to Next Paint' },
  { id: 'cls', name: 'CLS', long: 'Cumulative Layout Shift' },
  { id: 'fcp', name: 'FCP', long: 'First Contentful Paint' },
  { id: 'ttfb', name: 'TTFB', long: 'Time to First Byte' },
];

/** A value as people read it: seconds from 1 s, milliseconds under it, CLS as a score. */
function shown(metric: Metric, value: number | null): string {
  if (value === null) return '–';
  if (metric === 'cls') return value.toFixed(2);
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

/** Good, needs improvement or poor, by the metric's thresholds. */
function rating(thresholds: readonly number[], value: number | null): 'good' | 'fair' | 'poor' | 'none' {
  if (value === null) return 'none';
  return value <= thresholds[0]! ? 'good' : value <= thresholds[1]! ? 'fair' : 'poor';
}
const RATING_WORD = { good: 'good', fair: 'needs improvement', poor: 'poor', none: '' } as const;
const pct = (f: number) => `${Math.round(f * 100)}%`;

function MetricCard(props: { id: Metric; name: string; long: string; m: Schema<'VitalSummary'> }) {
  const { m } = props;
  const r = rating(m.thresholds, m.p75);
  return (
    <div class="vital">
      <abbr title={props.long}>{props.name}</abbr>
      <strong class={`vital-value ${r}`}>{shown(props.id, m.p75)}</strong>
      <span class="visually-hidden">at the 75th percentile, {RATING_WORD[r]}</span>
      {m.samples > 0 && (
        <>
          <div class="vital-bar" aria-hidden="true">
            <span class="good" style={{ width: pct(m.good) }} />
            <span class="fair" style={{ width: pct(m.needs_improvement) }} />
            <span class="poor" style={{ width: pct(m.poor) }} />
          </div>
          <span class="muted small">
            {pct(m.good)} good · {pct(m.poor)} poor · {compact(m.samples)} samples
          </span>
        </>
      )}
    </div>
  );
}

/**
 * Web Vitals of the period: each metric's p75 with its good / needs improvement / poor shares,
 * and p75 by page and by device. Loads when scrolled to; says how to turn it on when no page
 * sends vitals.
 */
export function Vitals({ scope }: { scope: Scope }) {
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/vitals', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const v = data.data;
  return (
    <section class="panel card vitals" ref={ref} aria-labelledby="vitals-title">
      <div class="panel-head">
        <h2 id="vitals-title">Web Vitals</h2>
        <span class="muted small">75th percentile</span>
      </div>
      <ErrorNote error={data.error} />
      {!v && !data.error && <Spinner />}
      {v && v.samples === 0 && (
        <p class="empty muted">
          No Web Vitals in this period. Load the tracker with <code>?variant=vitals</code> to measure them on
          real visits.
        </p>
      )}
      {v && v.samples > 0 && (
        <>
          <div class="vitals-grid">
            {METRICS.map((x) => (
              <MetricCard key={x.id} {...x} m={v.metrics[x.id]} />
            ))}
          </div>
          <ScrollRegion label="Web Vitals by page and device">
            <table class="data vitals-table">
              <caption class="visually-hidden">75th percentile of each metric by page and by device</caption>
              <thead>
                <tr>
                  <th scope="col">Page or device</th>
                  {METRICS.map((x) => (
                    <th scope="col" class="num" key={x.id}>
                      <abbr title={x.long}>{x.name}</abbr>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {[...v.pages.slice(0, 10), ...v.devices].map((row, i) => (
                  <tr
                    key={`${i}-${row.value}`}
                    class={i === Math.min(10, v.pages.length) ? 'group-start' : undefined}
                  >
                    <th scope="row">{row.value}</th>
                    {METRICS.map((x) => (
                      <td class={`num ${rating(v.metrics[x.id].thresholds, row[x.id])}`} key={x.id}>
                        {shown(x.id, row[x.id])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
    </section>
  );
}
