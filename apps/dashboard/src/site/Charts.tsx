import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api, type Schema, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { dateFormat, formatPercent } from '../i18n/format.ts';
import { t } from '../i18n/panels.ts';
import { cssColour, theme } from '../theme.ts';
import { displayValue } from './panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

type Charts = Schema<'Charts'>;
type Card = 'channels' | 'returning' | 'pages' | 'engaged' | 'conversions';

/** Line colours, the same order in both looks; light first, dark second. */
const PALETTE = {
  light: ['#4338ca', '#0e7490', '#15803d', '#b45309', '#be185d', '#6b7280'],
  dark: ['#a5b4fc', '#67e8f9', '#86efac', '#fcd34d', '#f9a8d4', '#9ca3af'],
};

const dayMonth = dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' });

/** A bucket's label on the axis: `28 Oct` for a day, week or month, `14:00` for an hour. */
function shortLabel(label: string | undefined): string {
  if (!label) return '';
  if (label.length > 10) return label.slice(11, 16);
  return dayMonth.format(new Date(`${label}T00:00:00Z`));
}

interface Line {
  name: string;
  values: number[];
}

/**
 * Lines over the period's buckets (uPlot), each with its colour in a legend that carries its
 * total; a table of the same numbers for screen readers.
 */
function LinesChart(props: { labels: string[]; lines: Line[]; caption: string }) {
  const box = useRef<HTMLDivElement>(null);
  const dark = theme.value === 'dark';
  const colours = PALETTE[dark ? 'dark' : 'light'];
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const x = props.labels.map((_, i) => i);
    const muted = cssColour('--muted');
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 200,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          {
            stroke: muted,
            grid: { show: false },
            ticks: { show: false },
            values: (_u, splits) => splits.map((s) => shortLabel(props.labels[Math.round(s)])),
            space: 60,
          },
          {
            stroke: muted,
            grid: { stroke: cssColour('--border'), width: 1 },
            ticks: { show: false },
            values: (_u, splits) => splits.map((v) => compact(v)),
            // whole visits only: no 0.25 of a visit on the axis
            incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6, 1e7],
            size: 48,
          },
        ],
        series: [
          {},
          ...props.lines.map((l, i) => ({
            label: l.name,
            stroke: colours[i % colours.length],
            width: 2,
            points: { show: x.length < 2 },
          })),
        ],
      },
      [x, ...props.lines.map((l) => l.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.labels, props.lines, dark]);
  return (
    <figure class="charts-figure">
      <div class="charts-box" ref={box} aria-hidden="true" />
      <ul class="charts-legend">
        {props.lines.map((l, i) => (
          <li key={l.name}>
            <span class="swatch" style={{ background: colours[i % colours.length] }} aria-hidden="true" />
            {l.name} <span class="muted">{compact(l.values.reduce((a, b) => a + b, 0))}</span>
          </li>
        ))}
      </ul>
      <table class="visually-hidden">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('bucket')}</th>
            {props.lines.map((l) => (
              <th scope="col" key={l.name}>
                {l.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.labels.map((label, i) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {props.lines.map((l) => (
                <td key={l.name}>{l.values[i]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** Visits by bin as bars, the numbers beside them (a table: readable as it is). */
function Bins(props: { rows: { name: string; visits: number }[]; head: string; caption: string }) {
  const max = Math.max(1, ...props.rows.map((r) => r.visits));
  const total = props.rows.reduce((a, r) => a + r.visits, 0);
  return (
    <ScrollRegion label={props.caption}>
      <table class="breakdown">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{props.head}</th>
            <th scope="col" class="num">
              {t('visits')}
            </th>
            <th scope="col" class="num">
              {t('share')}
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.name}>
              <td class="breakdown-value">
                <span class="bar" style={{ width: `${(r.visits / max) * 100}%` }} aria-hidden="true" />
                <span class="bin-label">{r.name}</span>
              </td>
              <td class="num">{compact(r.visits)}</td>
              <td class="num">
                {total === 0 ? '–' : formatPercent(Math.round((r.visits / total) * 100) / 100)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/**
 * The chart cards (`report/charts`): channels over time, first and returning visits, pages per
 * visit, engaged time and, with goals, converting visits; for the period and filters.
 */
export function ChartCards({ scope }: { scope: Scope }) {
  const [card, setCard] = useState<Card>('channels');
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/charts', {
        signal,
        params: {
          path: { site: scope.site.id },
          query: { ...periodQuery(scope), bucket: scope.view.bucket },
        },
      }),
    ),
  );
  const charts: Charts | undefined = data.data;
  const tabs: [Card, string][] = [
    ['channels', t('tabChannels')],
    ['returning', t('tabNewReturning')],
    ['pages', t('tabPagesPerVisit')],
    ['engaged', t('tabEngagedTime')],
    ...(charts?.conversions ? ([['conversions', t('conversions')]] as [Card, string][]) : []),
  ];
  const labels = charts?.buckets.map((b) => b.bucket) ?? [];
  return (
    <section class="panel card charts" ref={ref} aria-labelledby="charts-title">
      <div class="panel-head">
        <h2 id="charts-title">{t('trends')}</h2>
        <div class="tabs">
          {tabs.map(([k, label]) => (
            <button type="button" key={k} aria-pressed={k === card} onClick={() => setCard(k)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <ErrorNote error={data.error} />
      {!charts && !data.error && <Spinner />}
      {charts && card === 'channels' && (
        <LinesChart
          labels={labels}
          lines={charts.channels.map((c) => ({ name: displayValue('channel', c.channel), values: c.visits }))}
          caption={t('visitsByChannel')}
        />
      )}
      {charts && card === 'returning' && (
        <LinesChart
          labels={labels}
          lines={[
            { name: t('firstVisits'), values: charts.new_vs_returning.first },
            { name: t('returningVisits'), values: charts.new_vs_returning.returning },
          ]}
          caption={t('firstAndReturning')}
        />
      )}
      {charts && card === 'pages' && (
        <Bins
          head={t('pagesHead')}
          caption={t('visitsByPages')}
          rows={charts.pages_per_visit.map((b) => ({ name: b.pages, visits: b.visits }))}
        />
      )}
      {charts && card === 'engaged' && (
        <Bins
          head={t('engagedHead')}
          caption={t('visitsByEngaged')}
          rows={charts.engaged_time.map((b) => ({ name: b.range, visits: b.visits }))}
        />
      )}
      {charts?.conversions && card === 'conversions' && (
        <LinesChart
          labels={labels}
          lines={[{ name: t('reachedGoal'), values: charts.conversions.visits }]}
          caption={t('reachedGoalOverPeriod')}
        />
      )}
    </section>
  );
}
