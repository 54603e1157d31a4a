import type { Milestone } from '@footfall/control';
import { minorDigits } from '@footfall/payments';

const count = (n: number) => new Intl.NumberFormat('en').format(n);

/** Money in whole units when it is round (`€10,000`), with its cents otherwise (`€49.90`). */
export function money(amountMinor: number, currency: string): string {
  const digits = minorDigits(currency);
  const major = amountMinor / 10 ** digits;
  const whole = Number.isInteger(major);
  return new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    minimumFractionDigits: whole ? 0 : digits,
    maximumFractionDigits: whole ? 0 : digits,
  }).format(major);
}

const longDay = (day: string) =>
  new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(Date.parse(`${day}T00:00:00Z`));

/** What a milestone says: on its card (`value` and `label` large, `detail` under), in a title line. */
export interface MilestoneWords {
  value: string;
  label: string;
  /** one line: an alert's subject, the public page's title */
  title: string;
  detail: string;
}

/**
 * The words of a milestone. Money (revenue, the first sale) shows its amount only with
 * `showAmount`; without it the card says which milestone it is, never how much.
 */
export function milestoneWords(m: Milestone, domain: string, showAmount: boolean): MilestoneWords {
  const on = `on ${longDay(m.day)}`;
  const step = Number(m.step);
  const currency = m.currency ?? 'USD';
  switch (m.kind) {
    case 'visitors':
    case 'pageviews':
      return {
        value: count(step),
        label: m.kind,
        title: `${domain} reached ${count(step)} ${m.kind}`,
        detail: `${m.kind === 'visitors' ? 'Visitors' : 'Pageviews'} since the start, reached ${on}`,
      };
    case 'countries':
      return {
        value: count(step),
        label: 'countries',
        title: `${domain} has had visitors from ${count(step)} countries`,
        detail: `Visitors from ${count(step)} countries, reached ${on}`,
      };
    case 'revenue': {
      const amount = money(step * 10 ** minorDigits(currency), currency);
      return showAmount
        ? {
            value: amount,
            label: 'in revenue',
            title: `${domain} made ${amount} in revenue`,
            detail: `Revenue since the start, reached ${on}`,
          }
        : {
            value: 'Revenue',
            label: 'milestone',
            title: `${domain} reached a revenue milestone`,
            detail: `A round number of revenue, reached ${on}`,
          };
    }
    case 'record_day':
      return {
        value: count(m.value),
        label: m.value === 1 ? 'visitor in one day' : 'visitors in one day',
        title: `${domain} had its best day: ${count(m.value)} visitors`,
        detail: `The most in one day, ${on}`,
      };
    case 'first_goal':
      return {
        value: 'First',
        label: 'goal reached',
        title: `${domain} reached its first goal${m.goal ? `: ${m.goal}` : ''}`,
        detail: m.goal ? `${m.goal}, ${on}` : `Reached ${on}`,
      };
    case 'first_sale':
      return showAmount
        ? {
            value: 'First',
            label: 'sale',
            title: `${domain} made its first sale: ${money(m.value, currency)}`,
            detail: `${money(m.value, currency)}, ${on}`,
          }
        : {
            value: 'First',
            label: 'sale',
            title: `${domain} made its first sale`,
            detail: `Made ${on}`,
          };
  }
}
