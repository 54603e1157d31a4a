import { type ModelQuery, previousPeriod } from './expected.ts';
import { goalsOf } from './expected-goals.ts';
import {
  breakdown,
  chartSlots,
  DEEP,
  DIMENSIONS,
  type Group,
  group,
  hitBreakdown,
  inPeriod,
  matches,
  type PageEngagement,
  pageEngagement,
  type Visit,
} from './model.ts';

/** Rows of a breakdown in the export. */
export const CSV_ROWS = 1000;

/** A text cell as a spreadsheet must see it: formulas defused with a leading apostrophe. */
export const cell = (value: string | null): string =>
  value === null ? '' : /^[=+\-@]/.test(value) ? `'${value}` : value;

/** Percent with one decimal, from the counts (no floating point on the way). */
const percent = (bounces: number, visits: number): string =>
  visits === 0 ? '0' : String(Math.round((bounces * 1000) / visits) / 10);

const line = (
  dimension: string,
  value: string | null,
  g: Group,
  rate = true,
  engagement: PageEngagement = { scrollDepth: null, timeOnPage: null },
): string[] => [
  dimension,
  cell(value),
  String(g.visitors),
  String(g.visits),
  String(g.pageviews),
  rate ? percent(g.bounces, g.visits) : '',
  engagement.scrollDepth === null ? '' : String(engagement.scrollDepth),
  engagement.timeOnPage === null ? '' : String(engagement.timeOnPage),
];

/**
 * The export as parsed rows: the header, the period's total, the compared total, the chart
 * bucket by bucket, then every breakdown (dimensions in the report's order, then pages and
 * events), each at most 1000 rows.
 */
export function expectedCsv(all: readonly Visit[], q: ModelQuery): string[][] {
  const selected = all.filter((v) => matches(v, q.filters ?? []));
  const visits = inPeriod(selected, q.timeZone, q.from, q.to);
  const rows = [
    [
      'dimension',
      'value',
      'visitors',
      'sessions',
      'pageviews',
      'bounce_rate',
      'scroll_depth',
      'time_on_page',
    ],
  ];
  rows.push(line('total', `${q.from}..${q.to}`, group(null, visits)));
  if (q.compare) {
    const c = previousPeriod(q.from, q.to);
    rows.push(
      line('compare_total', `${c.from}..${c.to}`, group(null, inPeriod(selected, q.timeZone, c.from, c.to))),
    );
  }
  for (const slot of chartSlots(visits, q.timeZone, q.from, q.to, q.bucket)) {
    rows.push(line(`chart_${q.bucket}`, slot.label, group(null, slot.visits)));
  }
  for (const dim of DIMENSIONS) {
    if (!q.deep && DEEP.includes(dim)) continue;
    for (const g of breakdown(visits, dim, CSV_ROWS)) rows.push(line(dim, g.value, g));
  }
  for (const g of hitBreakdown(visits, 'pv', CSV_ROWS)) {
    rows.push(line('page', g.value, g, false, pageEngagement(visits, g.value ?? '')));
  }
  for (const g of hitBreakdown(visits, 'ev', CSV_ROWS)) {
    rows.push(line('event', g.value, { ...g, pageviews: g.events }, false));
  }
  // goals last, their conversions in the pageviews column
  for (const g of goalsOf(visits)) {
    rows.push(['goal', g.name, String(g.visitors), String(g.visits), String(g.conversions), '', '', '']);
  }
  return rows;
}
