import { api, type Schema, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { formatPercent } from '../i18n/format.ts';
import { locale } from '../i18n/language.ts';
import { t } from '../i18n/panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

type Metric = 'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb';
const METRICS: { id: Metric; name: string; long: string }[] = [
  { id: 'lcp', name: 'LCP', long: t('lcpName') },
  { id: 'inp', name: 'INP', long: t('inpName') },
  { id: 'cls', name: 'CLS', long: t('clsName') },
  { id: 'fcp', name: 'FCP', long: t('fcpName') },
  { id: 'ttfb', name: 'TTFB', long: t('ttfbName') },
];

/** `n` to `digits` decimals (rounded as toFixed rounds), in the page's locale, ungrouped: 1000 ms. */
const decimals = (n: number, digits: number) =>
  new Intl.NumberFormat(locale, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  }).format(Number(n.toFixed(digits)));

/** A value as people read it: seconds from 1 s, milliseconds under it, CLS as a score. */
function shown(metric: Metric, value: number | null): string {
  if (value === null) return '–';
  if (metric === 'cls') return decimals(value, 2);
  return value >= 1000
    ? t('valueSeconds', { value: decimals(value / 1000, 1) })
    : t('valueMilliseconds', { value: decimals(value, 0) });
}

/** Good, needs improvement or poor, by the metric's thresholds. */
function rating(thresholds: readonly number[], value: number | null): 'good' | 'fair' | 'poor' | 'none' {
  if (value === null) return 'none';
  return value <= thresholds[0]! ? 'good' : value <= thresholds[1]! ? 'fair' : 'poor';
}
const AT_P75 = { good: 'p75Good', fair: 'p75Fair', poor: 'p75Poor', none: 'p75None' } as const;
/** A share as a bar's CSS width. */
const width = (f: number) => `${Math.round(f * 100)}%`;
/** A share as people read it: 42% (42 % in French). */
const pct = (f: number) => formatPercent(Math.round(f * 100) / 100);

function MetricCard(props: { id: Metric; name: string; long: string; m: Schema<'VitalSummary'> }) {
  const { m } = props;
  const r = rating(m.thresholds, m.p75);
  return (
    <div class="vital">
      <abbr title={props.long}>{props.name}</abbr>
      <strong class={`vital-value ${r}`}>{shown(props.id, m.p75)}</strong>
      <span class="visually-hidden">{t(AT_P75[r])}</span>
      {m.samples > 0 && (
        <>
          <div class="vital-bar" aria-hidden="true">
            <span class="good" style={{ width: width(m.good) }} />
            <span class="fair" style={{ width: width(m.needs_improvement) }} />
            <span class="poor" style={{ width: width(m.poor) }} />
          </div>
          <span class="muted small">
            {t('vitalShares', {
              good: pct(m.good),
              poor: pct(m.poor),
              count: m.samples,
              n: compact(m.samples),
            })}
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
        <h2 id="vitals-title">{t('webVitals')}</h2>
        <span class="muted small">{t('percentile75')}</span>
      </div>
      <ErrorNote error={data.error} />
      {!v && !data.error && <Spinner />}
      {v && v.samples === 0 && (
        <p class="empty muted">{t.rich('noVitals', { code: <code>{'?variant=vitals'}</code> })}</p>
      )}
      {v && v.samples > 0 && (
        <>
          <div class="vitals-grid">
            {METRICS.map((x) => (
              <MetricCard key={x.id} {...x} m={v.metrics[x.id]} />
            ))}
          </div>
          <ScrollRegion label={t('vitalsRegion')}>
            <table class="data vitals-table">
              <caption class="visually-hidden">{t('vitalsCaption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('pageOrDevice')}</th>
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
