import { useMemo, useRef, useState } from 'preact/hooks';
import { api, type Schema, unwrap, urlFor } from '../api/client.ts';
import { lazyScreen } from '../components/lazy.tsx';
import { useShortcuts } from '../components/shortcuts.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useRefreshTick } from '../components/use-refresh.ts';
import { t as tc } from '../i18n/common.ts';
import { t } from '../i18n/report.ts';
import { navigate, query } from '../router.ts';
import { ComparePicker } from './ComparePicker.tsx';
import { chartSeries, noteMarks } from './chart-data.ts';
import { FilterChips } from './FilterChips.tsx';
import { MainChart } from './MainChart.tsx';
import { formatMetric, METRIC_LABELS } from './metrics.ts';
import { chooseMode } from './mode.ts';
import { Notes, noteWhen } from './Notes.tsx';
import { PanelCard } from './PanelCard.tsx';
import { PanelDetails } from './PanelDetails.tsx';
import { PeriodPicker } from './PeriodPicker.tsx';
import { tabOf, visiblePanels } from './panels.ts';
import { PERIODS, rangeLabel, resolvePeriod, todayIn } from './period.ts';
import { RangeForm } from './RangeForm.tsx';
import { SegmentsMenu } from './SegmentsMenu.tsx';
import { linkTo, reportQuery, type Scope } from './scope.ts';
import { TopStats } from './TopStats.tsx';
import { readView, withPeriod } from './view.ts';

/**
 * A site's report: the view comes from the URL; one report request answers the top stats, the
 * chart and every panel's first tab; heatmap and retention load when scrolled to.
 */
/** A link to a saved segment, looked up (Segments.tsx): nothing of it in the first view. */
const SegmentLink = lazyScreen<{ scope: Scope; onGone: (id: string) => void }>(
  () => import('./Segments.tsx'),
  'SegmentLink',
);

/** The panels under the breakdowns, loaded after the first view (BelowFold.tsx). */
const BelowFold = lazyScreen<{
  scope: Scope;
  goals: Schema<'ReportGoal'>[] | null;
  currency: string | null;
}>(() => import('./BelowFold.tsx'), 'BelowFold');

export function Report(props: {
  site: Schema<'Site'>;
  status: Schema<'SiteStatus'> | undefined;
  /** on a shared dashboard: its path, and whether it shows notes (no live view, no CSV) */
  shared?: { path: string; showNotes: boolean };
}) {
  const { site, shared } = props;
  const view = readView(query.value);
  const today = todayIn(site.timezone);
  const firstDay = props.status?.first_day ?? null;
  const range = resolvePeriod(view.period, today, firstDay, { from: view.from, to: view.to });
  // a period that includes now asks again every minute and when the tab comes back into view;
  // what is shown stays (scroll, filters, open panels) until the new answer replaces it
  const refresh = useRefreshTick(range.to >= today);
  const scope: Scope = {
    site,
    path: shared?.path ?? `/sites/${site.id}`,
    view,
    range,
    today,
    firstDay,
    refresh,
  };
  // a link to a saved segment waits for its filters (SegmentLink), unless it is gone
  const [goneSegment, setGoneSegment] = useState<string>();
  const segment = shared === undefined ? view.segment : undefined;
  // All time starts on the site's first day, so it waits for the status; no other period does
  const hold = (view.period === 'all' && !props.status) || (segment !== undefined && segment !== goneSegment);
  const [asking, setAsking] = useState<'period' | 'compare' | null>(null);
  const params = reportQuery(scope);
  const report = useLoad(
    (signal) =>
      hold
        ? new Promise<never>(() => undefined)
        : unwrap(
            api.GET('/api/v1/sites/{site}/report', {
              signal,
              params: { path: { site: site.id }, query: params },
            }),
          ),
    [site.id, JSON.stringify(params), hold, refresh],
  );
  // dimmed while another view loads, not while the same one refreshes
  const shown = useRef<string | undefined>(undefined);
  if (report.data && !report.loading) shown.current = JSON.stringify(params);
  const changing = report.loading && shown.current !== JSON.stringify(params);

  const notesOn = site.modules.notes && (shared === undefined || shared.showNotes);
  const notes = useLoad(
    (signal) =>
      notesOn
        ? unwrap(
            api.GET('/api/v1/sites/{site}/annotations', {
              signal,
              // as the report: a named period by its name (the page's Link header fetched it)
              params: {
                path: { site: site.id },
                query: params.period ? { period: params.period } : { from: range.from, to: range.to },
              },
            }),
          )
        : Promise.resolve({ annotations: [] }),
    [site.id, params.period, range.from, range.to, notesOn, refresh],
  );

  const periodKeys = Object.fromEntries(
    PERIODS.filter((p) => p.key !== 'custom').map((p) => [
      p.shortcut,
      () => navigate(linkTo(scope, (v) => withPeriod(v, p.key))),
    ]),
  );
  useShortcuts({
    ...periodKeys,
    c: () => setAsking('period'),
    x: () =>
      navigate(
        linkTo(scope, {
          compare: view.compare === 'off' ? 'previous' : 'off',
          cfrom: undefined,
          cto: undefined,
        }),
      ),
    r: () => {
      if (shared) return;
      chooseMode('live');
      navigate(`${scope.path}/live`);
    },
    Escape: () => view.filters.length > 0 && navigate(linkTo(scope, { filters: [] })),
  });

  const data = report.data;
  const currency = data?.revenue?.currency ?? null;
  // revenue is drawn only for a site that has it
  const metric = view.metric === 'revenue' && !currency ? 'visitors' : view.metric;
  const series = data && chartSeries(data.chart, data.compare_chart, metric, data.bucket);
  const noteList = notes.data?.annotations ?? [];
  // one Map per answer, so the chart is drawn again only when the report or the notes change
  const marks = useMemo(
    () => (data ? noteMarks(data.chart, data.bucket, notes.data?.annotations ?? []) : undefined),
    [data, notes.data],
  );
  const notesSaid =
    noteList.length > 0
      ? t('notesSaid', { notes: noteList.map((n) => `${noteWhen(n)}, ${n.text}`).join('; ') })
      : '';
  const detailsTab = tabOf(view.panel);
  return (
    <>
      <div class="toolbar">
        <PeriodPicker scope={scope} onCustom={() => setAsking('period')} />
        <ComparePicker scope={scope} onCustom={() => setAsking('compare')} />
        {!shared && <SegmentsMenu scope={scope} />}
        {!shared && (
          <a
            class="button secondary export"
            href={urlFor('/api/v1/sites/{site}/export.csv', { path: { site: site.id }, query: params })}
            download
          >
            {t('exportCsv')}
          </a>
        )}
      </div>
      <FilterChips scope={scope} />
      {segment !== undefined && <SegmentLink scope={scope} onGone={setGoneSegment} />}
      <ErrorNote error={report.error} />
      {!data && !report.error && <Spinner label={t('loadingReport')} />}
      {data && series && (
        <div class={changing ? 'report loading' : 'report'} aria-busy={report.loading}>
          <TopStats
            kpis={data.kpis}
            compare={data.compare_kpis}
            metric={metric}
            currency={currency}
            hrefFor={(m) => linkTo(scope, { metric: m })}
          />
          {data.compare && (
            <p class="compare-note muted">{t('comparedWith', { period: rangeLabel(data.compare) })}</p>
          )}
          {data.imported && (
            <p class="compare-note muted">
              {t(data.bucket === 'hour' ? 'importedNoteHours' : 'importedNote', {
                source: data.imported.source.replace('plausible', 'Plausible'),
                period: rangeLabel(data.imported),
              })}
            </p>
          )}
          <MainChart
            series={series}
            metric={metric}
            currency={currency}
            notes={marks}
            caption={t('chartCaption', {
              metric: METRIC_LABELS[metric],
              bucket: t(data.bucket),
              period: rangeLabel(data.period),
              value: formatMetric(metric, data.kpis[metric] ?? 0, currency),
              notes: notesSaid,
            })}
          />
          {notesOn && notes.data && (
            <Notes
              site={site.id}
              notes={noteList}
              defaultDay={range.to.localeCompare(today) < 0 ? range.to : today}
              onChanged={notes.reload}
            />
          )}
          {data.revenue && data.revenue.unpriced_currencies.length > 0 && (
            <p class="compare-note muted">
              {t('unpriced', { currencies: data.revenue.unpriced_currencies.join(', ') })}
            </p>
          )}
          <div class="panels">
            {visiblePanels().map((panel) => (
              <PanelCard
                key={panel.id}
                panel={panel}
                scope={scope}
                breakdowns={data.breakdowns}
                currency={currency}
              />
            ))}
            <BelowFold scope={scope} goals={data.goals} currency={data.revenue?.currency ?? null} />
          </div>
        </div>
      )}
      {detailsTab && <PanelDetails scope={scope} tab={detailsTab} />}
      {asking && (
        <RangeForm
          title={asking === 'period' ? tc('shortcutCustom') : t('compareWith')}
          initial={asking === 'period' ? range : { from: view.cfrom ?? range.from, to: view.cto ?? range.to }}
          max={today}
          onClose={() => setAsking(null)}
          onApply={(r) => {
            setAsking(null);
            navigate(
              linkTo(scope, (v) =>
                asking === 'period'
                  ? withPeriod(v, 'custom', r)
                  : { ...v, compare: 'custom', cfrom: r.from, cto: r.to },
              ),
            );
          }}
        />
      )}
    </>
  );
}
