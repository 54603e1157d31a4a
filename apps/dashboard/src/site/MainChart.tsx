import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../i18n/report.ts';
import { cssColour, theme } from '../theme.ts';
import { AXIS_STEPS, axisLabel, type ChartSeries } from './chart-data.ts';
import { formatMetric, METRIC_LABELS } from './metrics.ts';
import type { Metric } from './view.ts';

interface Hover {
  index: number;
  left: number;
}

/**
 * The chosen metric over the period (uPlot): the compared period drawn beneath in grey, the bucket
 * still in progress dashed, each note a flag on its bucket. Hovering (or moving with the arrow keys
 * when focused) shows a bucket's numbers and notes; the figure's caption says the same in words for
 * screen readers.
 */
export function MainChart(props: {
  series: ChartSeries;
  metric: Metric;
  caption: string;
  currency?: string | null;
  /** the notes flagged on each bucket, by bucket index */
  notes?: Map<number, string[]>;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const [hover, setHover] = useState<Hover>();
  const { series, metric } = props;
  const dark = theme.value === 'dark';

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const n = series.labels.length;
    const x = Array.from({ length: n }, (_, i) => i);
    // the line stops at the last finished bucket; the one in progress is a dashed segment
    const p = series.partial;
    const solid = series.values.map((v, i) => (p < 0 || i < p || (p === 0 && i === 0) ? v : null));
    const dashed = series.values.map((v, i) => (p >= 0 && (i === p || i === p - 1) ? v : null));
    const accent = cssColour('--accent');
    const muted = cssColour('--muted');
    const grid = cssColour('--border');
    const fmt = (v: number) => formatMetric(metric, v, props.currency);
    const noteColour = cssColour('--note');
    const flagged = [...(props.notes?.keys() ?? [])];
    const options: uPlot.Options = {
      width: el.clientWidth,
      height: 260,
      legend: { show: false },
      cursor: { points: { size: 8 }, drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          stroke: muted,
          grid: { show: false },
          ticks: { show: false },
          // buckets are whole numbers: a split between two (7 days on a wide chart) would repeat
          // a label, so the axis steps by whole buckets only
          incrs: AXIS_STEPS,
          values: (_u, splits) => splits.map((s) => axisLabel(series.labels, s)),
          space: 60,
        },
        {
          stroke: muted,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          values: (_u, splits) => splits.map(fmt),
          size: 56,
        },
      ],
      series: [
        {},
        {
          label: 'compare',
          stroke: series.compare ? cssColour('--compare') : 'transparent',
          width: 1.5,
          points: { show: false },
        },
        {
          label: METRIC_LABELS[metric],
          stroke: accent,
          width: 2.5,
          fill: `${accent}22`,
          points: { show: n < 2 },
        },
        { label: t('inProgress'), stroke: accent, width: 2.5, dash: [6, 5], points: { show: false } },
      ],
      hooks: {
        // a flag per note: a dotted line through the plot, a small pennant at its top
        draw: [
          (u) => {
            const ctx = u.ctx;
            const px = devicePixelRatio;
            ctx.save();
            ctx.strokeStyle = noteColour;
            ctx.fillStyle = noteColour;
            ctx.lineWidth = px;
            for (const index of flagged) {
              const x = Math.round(u.valToPos(index, 'x', true));
              ctx.setLineDash([2 * px, 3 * px]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x + 9 * px, u.bbox.top + 3.5 * px);
              ctx.lineTo(x, u.bbox.top + 7 * px);
              ctx.fill();
            }
            ctx.restore();
          },
        ],
        setCursor: [
          (u) => {
            const index = u.cursor.idx;
            setHover(index === null || index === undefined ? undefined : { index, left: u.cursor.left ?? 0 });
          },
        ],
      },
    };
    const data: uPlot.AlignedData = [x, series.compare ?? x.map(() => null), solid, dashed];
    plot.current = new uPlot(options, data, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = undefined;
    };
  }, [series, metric, dark, props.currency, props.notes]);

  const i = hover?.index;
  const value = i === undefined ? undefined : series.values[i];
  const before = i === undefined ? undefined : series.compare?.[i];
  return (
    <figure class="main-chart card">
      <figcaption class="visually-hidden">{props.caption}</figcaption>
      <div class="chart-box" ref={box} aria-hidden="true" />
      {i !== undefined && (
        <div
          class="chart-tip"
          style={{ left: `${Math.min(hover!.left + 70, (box.current?.clientWidth ?? 300) - 160)}px` }}
          aria-hidden="true"
        >
          <strong>{series.labels[i]}</strong>
          {i === series.partial && <span class="muted"> {t('soFar')}</span>}
          <div>
            {t('labelValue', {
              label: METRIC_LABELS[metric],
              value:
                value === null || value === undefined ? '–' : formatMetric(metric, value, props.currency),
            })}
          </div>
          {props.notes?.get(i)?.map((text) => (
            <div class="chart-note" key={text}>
              ⚑ {text}
            </div>
          ))}
          {series.compare && (
            <div class="muted">
              {t('labelValue', {
                label: series.compareLabels?.[i] ?? '',
                value:
                  before === null || before === undefined
                    ? '–'
                    : formatMetric(metric, before, props.currency),
              })}
            </div>
          )}
        </div>
      )}
    </figure>
  );
}
