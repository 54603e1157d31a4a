import type { Schema } from '../api/client.ts';
import { Link } from '../components/ui.tsx';
import { t } from '../i18n/report.ts';
import { changeOf, formatMetric, METRIC_LABELS } from './metrics.ts';
import { METRICS, type Metric, REVENUE_METRIC } from './view.ts';

/**
 * The period's six numbers (and its revenue, when the site has a payment connection), each with
 * its change against the compared period. Each is a link that draws it in the main chart (the
 * chosen one is marked as current).
 */
export function TopStats(props: {
  kpis: Schema<'Metrics'>;
  compare: Schema<'Metrics'> | null;
  metric: Metric;
  /** the site's currency when the report carries revenue */
  currency: string | null;
  hrefFor: (metric: Metric) => string;
}) {
  const shown = props.currency ? [...METRICS, REVENUE_METRIC] : METRICS;
  const value = (m: Metric, k: Schema<'Metrics'>) => k[m] ?? 0;
  return (
    <ul class={props.currency ? 'top-stats card with-revenue' : 'top-stats card'} aria-label={t('totals')}>
      {shown.map((m) => {
        const change = changeOf(m, value(m, props.kpis), props.compare ? value(m, props.compare) : undefined);
        return (
          <li key={m}>
            <Link
              class="top-stat"
              href={props.hrefFor(m)}
              aria-current={props.metric === m ? 'true' : undefined}
              data-metric={m}
            >
              <span class="top-stat-label">{METRIC_LABELS[m]}</span>
              <span class="top-stat-value">{formatMetric(m, value(m, props.kpis), props.currency)}</span>
              {change && (
                <span class={`change ${change.good ? 'good' : 'bad'}`}>
                  <span aria-hidden="true">
                    {change.direction === 'up' ? '↑' : change.direction === 'down' ? '↓' : '→'}
                  </span>
                  <span class="visually-hidden">
                    {t(change.direction === 'up' ? 'up' : change.direction === 'down' ? 'down' : 'unchanged')}
                  </span>{' '}
                  {change.text}
                </span>
              )}
              {props.compare && (
                <span class="top-stat-before muted">
                  <span class="visually-hidden">{t('comparedWithBefore')} </span>
                  {formatMetric(m, value(m, props.compare), props.currency)}
                </span>
              )}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
