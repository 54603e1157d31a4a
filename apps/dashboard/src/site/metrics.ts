import { compact, duration } from '../components/ui.tsx';
import { formatNumber, formatPercent } from '../i18n/format.ts';
import { locale } from '../i18n/language.ts';
import { t } from '../i18n/report.ts';
import type { Metric } from './view.ts';

export const METRIC_LABELS: Record<Metric, string> = {
  visitors: t('uniqueVisitors'),
  visits: t('totalVisits'),
  pageviews: t('totalPageviews'),
  views_per_visit: t('viewsPerVisit'),
  bounce_rate: t('bounceRate'),
  visit_duration: t('visitDuration'),
  revenue: t('revenue'),
};

/** An amount in minor units (cents) in its currency: `4900` EUR is €49.00, or €49 when `short`. */
export function formatMoney(minor: number, currency: string, short = false): string {
  const f = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  const major = minor / 10 ** digits;
  if (!short) return f.format(major);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    // $49 rather than US$49 where the locale would tell the dollars apart: the site has one currency
    currencyDisplay: 'narrowSymbol',
    notation: Math.abs(major) >= 10_000 ? 'compact' : 'standard',
    // whole amounts and large ones without cents: €49, €120, €12K; €49.50 keeps them
    minimumFractionDigits: 0,
    maximumFractionDigits: Number.isInteger(major) || Math.abs(major) >= 100 ? 0 : digits,
  }).format(major);
}

/** A metric's value as shown: counts compact, rates in percent, durations in minutes, money in its currency. */
export function formatMetric(metric: Metric, value: number, currency?: string | null): string {
  switch (metric) {
    case 'revenue':
      return formatMoney(value, currency ?? 'EUR', true);
    case 'bounce_rate':
      return formatPercent(value);
    case 'visit_duration':
      return duration(value);
    case 'views_per_visit':
      return formatNumber(value, 2);
    default:
      return compact(value);
  }
}

export interface Change {
  text: string;
  /** true when the change is good news (fewer bounces is good) */
  good: boolean;
  direction: 'up' | 'down' | 'flat';
}

/**
 * The change from the compared period: a percentage, or percentage points for the bounce rate;
 * undefined when there is nothing to compare with.
 */
export function changeOf(metric: Metric, now: number, before: number | undefined): Change | undefined {
  if (before === undefined) return undefined;
  let delta: number;
  let text: string;
  if (metric === 'bounce_rate') {
    delta = Math.round((now - before) * 100);
    text = t('points', { n: Math.abs(delta) });
  } else {
    if (before === 0)
      return now === 0 ? { text: formatPercent(0), good: true, direction: 'flat' } : undefined;
    delta = Math.round(((now - before) / before) * 100);
    text = formatPercent(Math.abs(delta) / 100);
  }
  const direction = delta > 0 ? 'up' : delta < 0 ? 'down' : 'flat';
  const good = metric === 'bounce_rate' ? delta <= 0 : delta >= 0;
  return { text, good, direction };
}
