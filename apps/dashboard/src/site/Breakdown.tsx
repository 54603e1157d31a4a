import { compact, duration, Link } from '../components/ui.tsx';
import { formatPercent } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';
import { Flag } from './Flag.tsx';
import { formatMoney } from './metrics.ts';
import { displayValue, inSentence, type Tab } from './panels.ts';

export interface Row {
  value: string | null;
  visitors: number;
  visits: number;
  pageviews?: number;
  events?: number;
  bounce_rate?: number;
  visit_duration?: number;
  /** with payments: revenue credited to this value, minor units */
  revenue?: number;
  /** pages: mean deepest scroll (percent) and engaged seconds, null when no visit reported them */
  scroll_depth?: number | null;
  time_on_page?: number | null;
}

interface Column {
  key: Exclude<keyof Row, 'value'>;
  label: string;
  format: (n: number) => string;
}

/** A number a row may lack (a page's engagement): a dash, with the reason for screen readers and on hover. */
function cell(value: number | null | undefined, format: (n: number) => string) {
  if (value === null) {
    return (
      <span class="muted" title={t('notReported')}>
        <span aria-hidden="true">–</span>
        <span class="visually-hidden">{t('notReported')}</span>
      </span>
    );
  }
  return format(Number(value ?? 0));
}

function columnsOf(tab: Tab, full: boolean, currency: string | null): Column[] {
  const count = (key: Column['key'], label: string): Column => ({ key, label, format: compact });
  const columns = [count('visitors', t('visitors'))];
  if (full) columns.push(count('visits', t('visits')));
  if (tab.dim === 'events') columns.push(count('events', t('events')));
  else if (tab.dim === 'pages' || tab.dim === 'hostname' || full)
    columns.push(count('pageviews', t('pageviews')));
  if (full && tab.dim === 'pages') {
    columns.push(
      { key: 'scroll_depth', label: t('scrollDepth'), format: (n) => formatPercent(n / 100) },
      { key: 'time_on_page', label: t('timeOnPage'), format: duration },
    );
  }
  if (full && tab.dim !== 'pages' && tab.dim !== 'events' && tab.dim !== 'hostname') {
    columns.push(
      { key: 'bounce_rate', label: t('bounceRate'), format: formatPercent },
      { key: 'visit_duration', label: t('visitDuration'), format: duration },
    );
  }
  if (currency)
    columns.push({ key: 'revenue', label: t('revenue'), format: (n) => formatMoney(n, currency, true) });
  return columns;
}

/**
 * One breakdown as a table, the same for every panel: each row's value is a link that adds its
 * filter, with a bar of its share of the top row's visitors. `full` shows every column.
 */
export function Breakdown(props: {
  tab: Tab;
  rows: Row[];
  hrefFor: (value: string | null) => string;
  full?: boolean;
  /** the site's currency, when the rows carry revenue */
  currency?: string | null;
}) {
  const { tab, rows } = props;
  const withRevenue = props.currency && rows.some((r) => r.revenue !== undefined) ? props.currency : null;
  const columns = columnsOf(tab, !!props.full, withRevenue);
  const top = Math.max(1, ...rows.map((r) => r.visitors));
  if (rows.length === 0) return <p class="empty muted">{t('nothingInPeriod')}</p>;
  return (
    <table class="breakdown">
      <thead>
        <tr>
          <th scope="col">{tab.column}</th>
          {columns.map((c) => (
            <th scope="col" class="num" key={c.key}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const text = displayValue(tab.filter, row.value);
          return (
            <tr key={row.value ?? '\u0000'}>
              <td class="breakdown-value">
                <span class="bar" style={{ width: `${(row.visitors / top) * 100}%` }} />
                <Link
                  href={props.hrefFor(row.value)}
                  title={t('showOnly', { dimension: inSentence(tab.column), value: text })}
                >
                  {tab.filter === 'country' && row.value && <Flag code={row.value} />}
                  {text}
                </Link>
              </td>
              {columns.map((c) => (
                <td class="num" key={c.key}>
                  {cell(row[c.key], c.format)}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
