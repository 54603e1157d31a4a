import { api, type Schema, unwrap } from '../api/client.ts';
import { useShortcuts } from '../components/shortcuts.ts';
import { ErrorNote, Link, ScrollRegion, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useRefreshTick } from '../components/use-refresh.ts';
import { t } from '../i18n/allSites.ts';
import { compact, formatPercent } from '../i18n/format.ts';
import { t as tr } from '../i18n/report.ts';
import { t as ts } from '../i18n/sites.ts';
import { navigate, query } from '../router.ts';
import { Breakdown } from '../site/Breakdown.tsx';
import { chartSeries } from '../site/chart-data.ts';
import { FilterChips } from '../site/FilterChips.tsx';
import { MainChart } from '../site/MainChart.tsx';
import { changeOf, formatMetric, METRIC_LABELS } from '../site/metrics.ts';
import { tabOf } from '../site/panels.ts';
import { PERIODS, rangeLabel } from '../site/period.ts';
import { TopStats } from '../site/TopStats.tsx';
import { readView, type View, viewHref, withFilter, withPeriod } from '../site/view.ts';

const PATH = '/all';
/** The periods a report of several sites takes: each names the same days in every site's zone. */
const ALL_SITES_PERIODS = PERIODS.filter((p) => p.key !== 'custom' && p.key !== 'all');
/** The breakdowns shown, each as on a site's report. */
const SHOWN = ['channel', 'pages', 'country'] as const;

type Answer = Schema<'AllSitesReport'>;

/** One site's row: its visitors, their share and change, and the rest of its KPIs. */
function SiteRow({ row }: { row: Answer['sites'][number] }) {
  const change = changeOf('visitors', row.kpis.visitors, row.compare_kpis?.visitors);
  return (
    <tr>
      <th scope="row" class="breakdown-value">
        <span class="bar" style={{ width: `${row.share * 100}%` }} />
        <Link href={`/sites/${row.id}`}>{row.domain}</Link>
      </th>
      <td class="num">{compact(row.kpis.visitors)}</td>
      <td class="num">{formatPercent(row.share)}</td>
      <td class="num">
        {change ? (
          <span class={`change ${change.good ? 'good' : 'bad'}`}>
            {change.direction === 'up' ? '↑' : change.direction === 'down' ? '↓' : '→'} {change.text}
          </span>
        ) : (
          <span class="muted">–</span>
        )}
      </td>
      <td class="num">{compact(row.kpis.visits)}</td>
      <td class="num">{compact(row.kpis.pageviews)}</td>
      <td class="num">{formatMetric('bounce_rate', row.kpis.bounce_rate)}</td>
    </tr>
  );
}

/**
 * Every site the person may read at once (`GET /api/v1/report`): the totals and chart of all of
 * them, a row per site with its share and change, and the top sources, pages (each with its site)
 * and countries. Filters and periods work as on a site's report; each site counts its own days.
 */
export function AllSitesScreen() {
  const view = readView(query.value);
  const period = (ALL_SITES_PERIODS.some((p) => p.key === view.period) ? view.period : '30d') as Exclude<
    typeof view.period,
    'custom' | 'all'
  >;
  const refresh = useRefreshTick(true);
  const params = {
    period,
    compare: view.compare === 'year' ? ('year' as const) : ('previous' as const),
    f: view.filters.length > 0 ? view.filters : undefined,
    bucket: view.bucket,
    breakdowns: SHOWN.join(','),
  };
  const report = useLoad(
    (signal) => unwrap(api.GET('/api/v1/report', { signal, params: { query: params } })),
    [JSON.stringify(params), refresh],
  );
  const link = (change: (v: View) => View) => viewHref(PATH, change({ ...view, period }));
  useShortcuts({
    ...Object.fromEntries(
      ALL_SITES_PERIODS.map((p) => [p.shortcut, () => navigate(link((v) => withPeriod(v, p.key)))]),
    ),
    Escape: () => view.filters.length > 0 && navigate(link((v) => ({ ...v, filters: [] }))),
  });
  const data = report.data;
  const metric = view.metric === 'revenue' ? 'visitors' : view.metric;
  const series = data && chartSeries(data.chart, data.compare_chart, metric, data.bucket);
  return (
    <main class="page" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{ts('allSites')}</h1>
        <Link class="button secondary" href="/sites">
          {t('backToSites')}
        </Link>
      </div>
      <nav class="toolbar period-links" aria-label={t('allSitesPeriod')}>
        {ALL_SITES_PERIODS.map((p) => (
          <Link
            key={p.key}
            class="chip"
            href={link((v) => withPeriod(v, p.key))}
            aria-current={p.key === period ? 'page' : undefined}
          >
            {p.label}
          </Link>
        ))}
      </nav>
      <FilterChips scope={{ path: PATH, view: { ...view, period } }} />
      <ErrorNote error={report.error} />
      {!data && !report.error && <Spinner label={tr('loadingReport')} />}
      {data && series && (
        <div class={report.loading ? 'report loading' : 'report'} aria-busy={report.loading}>
          <TopStats
            kpis={data.kpis}
            compare={data.compare_kpis}
            metric={metric}
            currency={null}
            hrefFor={(m) => link((v) => ({ ...v, metric: m }))}
          />
          {data.compare && (
            <p class="compare-note muted">{tr('comparedWith', { period: rangeLabel(data.compare) })}</p>
          )}
          <MainChart
            series={series}
            metric={metric}
            caption={tr('chartCaption', {
              metric: METRIC_LABELS[metric],
              bucket: tr(data.bucket),
              period: rangeLabel(data.period),
              value: formatMetric(metric, data.kpis[metric] ?? 0),
              notes: '',
            })}
          />
          <p class="compare-note muted">
            {data.time_zones.length > 1 ? t('eachSiteOwnDays') : ''} {t('revenuePerSite')}
          </p>
          <section class="card all-sites-table" aria-labelledby="all-sites-each">
            <h2 id="all-sites-each">{t('eachSite')}</h2>
            <ScrollRegion label={t('eachSite')}>
              <table class="breakdown">
                <thead>
                  <tr>
                    <th scope="col">{ts('site')}</th>
                    <th scope="col" class="num">
                      {METRIC_LABELS.visitors}
                    </th>
                    <th scope="col" class="num">
                      {t('share')}
                    </th>
                    <th scope="col" class="num">
                      {t('change')}
                    </th>
                    <th scope="col" class="num">
                      {METRIC_LABELS.visits}
                    </th>
                    <th scope="col" class="num">
                      {METRIC_LABELS.pageviews}
                    </th>
                    <th scope="col" class="num">
                      {METRIC_LABELS.bounce_rate}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.sites.map((row) => (
                    <SiteRow key={row.id} row={row} />
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          </section>
          <div class="panels">
            {SHOWN.map((dim) => {
              const tab = tabOf(dim)!;
              const rows = (data.breakdowns[dim] ?? []) as (
                | Schema<'AllSitesRow'>
                | Schema<'AllSitesPageRow'>
              )[];
              const domainOf = new Map(data.sites.map((s) => [s.id, s.domain]));
              return (
                <section key={dim} class="card panel" aria-labelledby={`all-${dim}`}>
                  <h2 id={`all-${dim}`}>{tab.label}</h2>
                  <Breakdown
                    tab={tab}
                    rows={rows.map((r) =>
                      'site' in r ? { ...r, value: `${domainOf.get(r.site) ?? r.site}${r.value}` } : r,
                    )}
                    hrefFor={(value) =>
                      link((v) =>
                        withFilter(
                          v,
                          tab.filter,
                          dim === 'pages' && value !== null ? value.slice(value.indexOf('/')) : value,
                        ),
                      )
                    }
                  />
                </section>
              );
            })}
          </div>
        </div>
      )}
    </main>
  );
}
