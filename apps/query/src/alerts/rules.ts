import type { ControlDb } from '@footfall/control';
import { minorDigits, type RateTable } from '@footfall/payments';

/** A busy day: at least this many times the usual visitors of the weekday... */
export const BUSY_FACTOR = 2;
/** ...and at least this many more, so a site of three visitors a day is not busy at seven. */
export const BUSY_MARGIN = 20;
/** How many of the same weekdays before today make "the usual" (the ones the site existed on). */
export const BUSY_WEEKS = 4;
/** The fewest of those weekdays a site needs before it can have a busy day. */
export const BUSY_MIN_WEEKS = 2;

/**
 * Whether today is a busy day (docs/alerts.md): `days` holds the visitors of the last
 * BUSY_WEEKS × 7 days and today (today last, so far); `firstDayIndex` is the index of the site's
 * first day with a visit. The usual is the mean of the same weekday in the weeks before that the
 * site existed in (at least BUSY_MIN_WEEKS); today is busy once its visitors so far reach
 * BUSY_FACTOR × the usual and BUSY_MARGIN more than it. Comparing a day so far with whole days
 * means the alert comes once the day is already well ahead, never on a guess.
 */
export function busyDay(
  days: readonly number[],
  firstDayIndex: number,
): { today: number; usual: number } | null {
  const todayIndex = days.length - 1;
  const today = days[todayIndex] ?? 0;
  const weeks: number[] = [];
  for (let w = 1; w <= BUSY_WEEKS; w++) {
    const i = todayIndex - 7 * w;
    if (i >= 0 && i >= firstDayIndex) weeks.push(days[i] ?? 0);
  }
  if (weeks.length < BUSY_MIN_WEEKS) return null;
  const usual = weeks.reduce((a, b) => a + b, 0) / weeks.length;
  const busy = today >= BUSY_FACTOR * usual && today - usual >= BUSY_MARGIN;
  return busy ? { today, usual: Math.round(usual * 10) / 10 } : null;
}

export interface NewPayments {
  /** the last inbox sequence read: the next look starts after it */
  cursor: number;
  count: number;
  /** the sum in the site's currency (minor units), of the payments a rate was known for */
  amountMinor: number;
  currency: string;
  /** payments whose currency had no rate on their day: summed per currency instead */
  unconverted: { currency: string; amount_minor: number; count: number }[];
  firstAt: number | null;
  lastAt: number | null;
}

/**
 * The live payments (never sandbox) of a site after `cursor` not told of yet. A payment seen
 * again (a sync after its webhook moves the row's inbox_seq) is not news.
 */
const NEW_PAYMENTS = `FROM ledger_payments p
  WHERE site_id = ? AND test = 0 AND inbox_seq > ?
    AND NOT EXISTS (SELECT 1 FROM alert_payments_told t
                    WHERE t.connection_id = p.connection_id AND t.payment_id = p.payment_id)`;

/** Whether paymentsSince would find any payment; marks nothing. */
export function hasPaymentsSince(ctl: ControlDb, siteId: string, cursor: number): boolean {
  return ctl.raw.prepare(`SELECT 1 ${NEW_PAYMENTS} LIMIT 1`).get(siteId, cursor) !== undefined;
}

/**
 * Live payments (never sandbox) of a site that entered the ledger after `cursor` (an inbox
 * sequence: a payment the reconciliation found late counts when it is found) and were not told of
 * before, summed in the site's currency at each payment day's ECB rate; they are marked told.
 * Call it inside the transaction that queues their alert (alerts.ts): a crash before the commit
 * then leaves them untold, and the next look finds them again.
 */
export function paymentsSince(
  ctl: ControlDb,
  site: { id: string; currency: string },
  cursor: number,
  rates: RateTable | undefined,
): NewPayments {
  const rows = ctl.raw
    .prepare(
      `SELECT connection_id, payment_id, inbox_seq, at, amount, currency ${NEW_PAYMENTS} ORDER BY inbox_seq`,
    )
    .all(site.id, cursor) as {
    connection_id: string;
    payment_id: string;
    inbox_seq: number;
    at: number;
    amount: number;
    currency: string;
  }[];
  const told = ctl.raw.prepare(
    'INSERT OR IGNORE INTO alert_payments_told (connection_id, payment_id) VALUES (?, ?)',
  );
  ctl.raw.transaction(() => {
    for (const r of rows) told.run(r.connection_id, r.payment_id);
  })();
  const out: NewPayments = {
    cursor,
    count: rows.length,
    amountMinor: 0,
    currency: site.currency,
    unconverted: [],
    firstAt: null,
    lastAt: null,
  };
  for (const r of rows) {
    out.cursor = Math.max(out.cursor, r.inbox_seq);
    out.firstAt = out.firstAt === null ? r.at : Math.min(out.firstAt, r.at);
    out.lastAt = out.lastAt === null ? r.at : Math.max(out.lastAt, r.at);
    const day = new Date(r.at).toISOString().slice(0, 10);
    const converted =
      r.currency === site.currency ? r.amount : rates?.convertMinor(r.amount, r.currency, site.currency, day);
    if (converted !== undefined) {
      out.amountMinor += converted;
      continue;
    }
    const other = out.unconverted.find((u) => u.currency === r.currency);
    if (other) {
      other.amount_minor += r.amount;
      other.count += 1;
    } else out.unconverted.push({ currency: r.currency, amount_minor: r.amount, count: 1 });
  }
  return out;
}

/**
 * The first look at a site's payments: every payment already in the ledger counts as told (none
 * of them is news), and the highest inbox sequence so far is the cursor (0 before any).
 */
export function lastPaymentSeq(ctl: ControlDb, siteId: string): number {
  ctl.raw
    .prepare(
      `INSERT OR IGNORE INTO alert_payments_told (connection_id, payment_id)
       SELECT connection_id, payment_id FROM ledger_payments WHERE site_id = ?`,
    )
    .run(siteId);
  const row = ctl.raw
    .prepare('SELECT max(inbox_seq) AS seq FROM ledger_payments WHERE site_id = ?')
    .get(siteId) as {
    seq: number | null;
  };
  return row.seq ?? 0;
}

/** An amount in minor units written for people: `€1,234.50`, `¥1,200`. */
export function formatMoney(amountMinor: number, currency: string): string {
  const digits = minorDigits(currency);
  return new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amountMinor / 10 ** digits);
}

/** The words of a "someone paid" alert: the count and the total, in the site's currency where it can be. */
export function paymentWords(
  site: { domain: string; currency: string },
  found: NewPayments,
): { title: string; text: string; data: Record<string, unknown> } {
  const amount = formatMoney(found.amountMinor, site.currency);
  const others = found.unconverted.map((u) => formatMoney(u.amount_minor, u.currency));
  const total = [found.amountMinor > 0 || others.length === 0 ? amount : null, ...others]
    .filter(Boolean)
    .join(' + ');
  return {
    title:
      found.count === 1
        ? `${site.domain}: someone paid ${total}`
        : `${site.domain}: ${found.count} payments, ${total}`,
    text: `${found.count === 1 ? 'A payment' : `${found.count} payments`} of ${total} came in for ${site.domain} since the last alert.`,
    data: {
      payments: found.count,
      amount_minor: found.amountMinor,
      currency: site.currency,
      amount: amount,
      unconverted: found.unconverted,
      first_at: found.firstAt === null ? null : new Date(found.firstAt).toISOString(),
      last_at: found.lastAt === null ? null : new Date(found.lastAt).toISOString(),
    },
  };
}
