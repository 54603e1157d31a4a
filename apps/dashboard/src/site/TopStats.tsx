import type { Schema } from '../api/client.ts';
import { Link } from '../components/ui.tsx';
import { changeOf, formatMetric, METRIC_LABELS } from './metrics.ts';
import { METRICS, type Metric } from './view.ts';

/**
 * The period's six numbers, each with its change against the compared period. Each is a link
 * that draws it in the main chart (the chosen one is marked as current).
 */
export function TopStats(props: {
  kpis: Schema<'Metrics'>;
  compare: Schema<'Metrics'> | null;
  metric: Metric;
  hrefFor: (metric: Metric) => string;
}) {
  return (
    <ul class="top-stats card" aria-label="Totals of the period">
      {METRICS.map((m) => {
        const change = changeOf(m, props.kpis[m], props.compare?.[m]);
        return (
          <li key={m}>
            <Link
              class="top-stat"
              href={props.hrefFor(m)}
              aria-current={props.metric === m ? 'true' : undefined}
              data-metric={m}
            >
              <span class="top-stat-label">{METRIC_LABELS[m]}</span>
              <span class="top-stat-value">{formatMetric(m, props.kpis[m])}</span>
              {change && (
                <span class={`change ${change.good ? 'good' : 'bad'}`}>
                  <span aria-hidden="true">
                    {change.direction === 'up' ? '↑' : change.direction === 'down' ? '↓' : '→'}
                  </span>
                  <span class="visually-hidden">
                    {change.direction === 'up' ? 'up' : change.direction === 'down' ? 'down' : 'unchanged'}
                  </span>{' '}
                  {change.text}
                </span>
              )}
              {props.compare && (
                <span class="top-stat-before muted">
                  <span class="visually-hidden">compared with </span>
                  {formatMetric(m, props.compare[m])}
                </span>
              )}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
