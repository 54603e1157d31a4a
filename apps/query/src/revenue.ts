import type { ControlDb, Site } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { RateTable } from '@footfall/payments';
import type {
  Anchor,
  AttributionModel,
  BreakdownAnswer,
  CreditedVisit,
  GoalMatch,
  RawReportQuery,
  Report,
  ReportParams,
} from './engine/index.ts';
import { VISIT_DIMENSIONS, type VisitDimension } from './engine/report-params.ts';

/**
 * Revenue of a report, computed at read time from the ledger (packages/payments/README.md):
 * converted into the site's currency at the ECB rate of each line's day, each sale credited to a
 * visit by `attribution` (engine/attribution.ts), refunds and lost disputes subtracted on the day
 * they happen and credited like their payment. Amounts are integers in the currency's minor units.
 */

/** Report parameters about revenue only, read by the routes (the engine's reports do not see them). */
export const REVENUE_PARAMS = ['attr', 'payments'];

/** `attr` (last, first) and `payments` (live, test); 400 naming the parameter otherwise. */
export function revenueOptions(query: RawReportQuery): RevenueOptions {
  const one = (name: string, allowed: string[]) => {
    const raw = query[name];
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (values.length > 1 || (values.length === 1 && !allowed.includes(values[0]!))) {
      throw new AppError('invalid_parameter', `${name} must be one of ${allowed.join(', ')}`, {
        field: name,
      });
    }
    return values[0] ?? allowed[0]!;
  };
  return {
    model: one('attr', ['last', 'first']) as RevenueOptions['model'],
    test: one('payments', ['live', 'test']) === 'test',
  };
}

export interface RevenueOptions {
  model: AttributionModel;
  /** `payments=test`: sandbox and test payments instead of live ones */
  test: boolean;
}

/** What the report answer says about its revenue. */
export interface RevenueSummary {
  currency: string;
  attribution: AttributionModel;
  payments: 'live' | 'test';
  /** currencies of payments in the period with no ECB rate: left out of every number, named here */
  unpriced_currencies: string[];
  /** revenue of the period not credited to any visit (no visitor id, or no visit before the sale) */
  unattributed: number;
}

interface PaymentRow {
  payment_id: string;
  connection_id: string;
  at: number;
  amount: number;
  tax: number;
  currency: string;
  kind: 'one_time' | 'subscription' | 'renewal';
  customer_id: string | null;
  subscription_id: string | null;
  email_hash: string | null;
  visitor: string | null;
}

/** One movement of money: a sale (positive) or a refund or lost dispute (negative). */
interface Line {
  at: number;
  currency: string;
  /** minor units of `currency`, revenue (tax excluded) */
  amount: number;
  payment: PaymentRow;
  sale: boolean;
}

/** A payment's share of tax in `amount` of it, rounded to the nearest cent. */
const taxShare = (p: PaymentRow, amount: number) =>
  p.amount === 0 ? 0 : Math.round((amount * p.tax) / p.amount);

/** The ledger of a site as lines, refunds and disputes lost tied to their payments. */
function ledgerLines(ctl: ControlDb, siteId: string, test: boolean): Line[] {
  const t = test ? 1 : 0;
  const payments = ctl.raw
    .prepare('SELECT * FROM ledger_payments WHERE site_id = ? AND test = ?')
    .all(siteId, t) as PaymentRow[];
  const byId = new Map(payments.map((p) => [`${p.connection_id}\u0000${p.payment_id}`, p]));
  const lines: Line[] = payments.map((p) => ({
    at: p.at,
    currency: p.currency,
    amount: p.amount - p.tax,
    payment: p,
    sale: true,
  }));
  // a refund or dispute whose payment has not arrived yet waits for it: it has nothing to reduce
  const takeBack = (
    rows: { connection_id: string; payment_id: string; at: number; amount: number; currency: string }[],
  ) => {
    for (const r of rows) {
      const p = byId.get(`${r.connection_id}\u0000${r.payment_id}`);
      if (p)
        lines.push({
          at: r.at,
          currency: r.currency,
          amount: -(r.amount - taxShare(p, r.amount)),
          payment: p,
          sale: false,
        });
    }
  };
  takeBack(
    ctl.raw.prepare('SELECT * FROM ledger_refunds WHERE site_id = ? AND test = ?').all(siteId, t) as never[],
  );
  takeBack(
    ctl.raw
      .prepare(
        `SELECT *, status_at AS at FROM ledger_disputes WHERE site_id = ? AND test = ? AND status = 'lost'`,
      )
      .all(siteId, t) as never[],
  );
  return lines;
}

/**
 * Who each payment is credited to and from when: its own visitor id, else one found through the
 * customer graph (another payment of the same customer, subscription or e-mail that had one); a
 * renewal is credited like its subscription's first payment.
 */
function anchors(payments: PaymentRow[]): Map<PaymentRow, Anchor | null> {
  const byTime = [...payments].sort((a, b) => a.at - b.at || a.payment_id.localeCompare(b.payment_id));
  const known = new Map<string, string>();
  for (const p of byTime) {
    if (!p.visitor) continue;
    for (const key of graphKeys(p)) if (!known.has(key)) known.set(key, p.visitor);
  }
  const visitorOf = (p: PaymentRow) =>
    p.visitor ??
    graphKeys(p)
      .map((k) => known.get(k))
      .find((v) => v !== undefined) ??
    null;
  const firstOfSubscription = new Map<string, PaymentRow>();
  for (const p of byTime) {
    if (p.subscription_id && !firstOfSubscription.has(p.subscription_id))
      firstOfSubscription.set(p.subscription_id, p);
  }
  const out = new Map<PaymentRow, Anchor | null>();
  for (const p of payments) {
    const from =
      p.kind === 'renewal' && p.subscription_id ? (firstOfSubscription.get(p.subscription_id) ?? p) : p;
    const visitor = visitorOf(from) ?? visitorOf(p);
    out.set(p, visitor ? { visitor, at: from.at } : null);
  }
  return out;
}

const graphKeys = (p: PaymentRow) =>
  [
    p.customer_id ? `c:${p.customer_id}` : '',
    p.subscription_id ? `s:${p.subscription_id}` : '',
    p.email_hash ? `e:${p.email_hash}` : '',
  ].filter(Boolean);

/** Who paid, for counting customers: the customer id, else the e-mail, else the visitor, else the payment. */
const payerOf = (p: PaymentRow) =>
  p.customer_id
    ? `c:${p.customer_id}`
    : p.email_hash
      ? `e:${p.email_hash}`
      : p.visitor
        ? `v:${p.visitor}`
        : `p:${p.payment_id}`;

/** Revenue and customers of a set of lines. */
class Sums {
  revenue = 0;
  readonly #payers = new Set<string>();
  add(line: Line, amount: number) {
    this.revenue += amount;
    if (line.sale) this.#payers.add(payerOf(line.payment));
  }
  get customers() {
    return this.#payers.size;
  }
}

/** A line's amount in the site's currency at its day's ECB rate; undefined without a rate. */
function inSiteCurrency(line: Line, site: Site, rates: RateTable | undefined): number | undefined {
  if (line.currency === site.currency.toUpperCase()) return line.amount;
  return rates?.convertMinor(
    line.amount,
    line.currency,
    site.currency,
    new Date(line.at).toISOString().slice(0, 10),
  );
}

/** A site's local day of an instant, `YYYY-MM-DD`. */
const localDay = (zone: string) => {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  return (ms: number) => f.format(ms);
};

export interface RevenueInput {
  control: ControlDb;
  rates: RateTable | undefined;
  site: Site;
  report: Report;
  params: ReportParams;
  options: RevenueOptions;
  /** the engine's attribution read, bound to the request's signal */
  attribute: (anchors: Anchor[]) => Promise<(CreditedVisit | null)[]>;
  /** the site's goals: with `goalPayers`, the answer says what the people who reached each paid */
  goals?: readonly GoalMatch[];
  /** the engine's read of which goals each sale's visitor reached before it, bound to the request */
  goalPayers?: (anchors: Anchor[], goals: readonly GoalMatch[]) => Promise<number[][]>;
  /** a breakdown searched for this text: rows added for revenue must contain it too */
  search?: string | undefined;
}

/**
 * The report with revenue: `revenue` (the summary), and `revenue`, `customers` and
 * `revenue_per_visitor` in the KPIs, `revenue` on every chart point and `revenue` and `customers`
 * on every row of a visit-dimension breakdown, for the period and the comparison.
 */
export async function withRevenue(
  input: RevenueInput,
): Promise<Report & { revenue: RevenueSummary; goal_revenue: number[] | null }> {
  const { site, report, params } = input;
  const search = input.search?.toLowerCase();
  const dayOf = localDay(site.timezone);
  const unpriced = new Set<string>();
  const periods = [params.period, ...(params.compare ? [params.compare] : [])];
  const inAny = (day: string) => periods.some((p) => day >= p.from && day <= p.to);
  // every line of the period and the comparison, converted; the rest is never looked at
  const lines = ledgerLines(input.control, site.id, input.options.test).flatMap((line) => {
    const day = dayOf(line.at);
    if (!inAny(day)) return [];
    const amount = inSiteCurrency(line, site, input.rates);
    if (amount === undefined) {
      unpriced.add(line.currency);
      return [];
    }
    return [{ line, day, amount }];
  });
  const payments = [...new Set(lines.map((l) => l.line.payment))];
  const anchorOf = anchors(payments);
  const wanted = payments.filter((p) => anchorOf.get(p));
  const credited = new Map<PaymentRow, CreditedVisit | null>();
  const found = await input.attribute(wanted.map((p) => anchorOf.get(p)!));
  for (const [i, p] of wanted.entries()) credited.set(p, found[i] ?? null);

  const filtered = params.filters.length > 0;
  const dims = VISIT_DIMENSIONS.filter((d) => report.breakdowns[d] !== undefined);
  const sumsOf = (period: { from: string; to: string }, chart: { start: string }[] | null) => {
    const total = new Sums();
    let unattributed = 0;
    const starts = (chart ?? []).map((c) => Date.parse(c.start));
    const byBucket = starts.map(() => 0);
    const byValue = new Map<VisitDimension, Map<string | null, Sums>>(dims.map((d) => [d, new Map()]));
    for (const { line, day, amount } of lines) {
      if (day < period.from || day > period.to) continue;
      const visit = credited.get(line.payment) ?? null;
      if (filtered && !visit?.matches) continue;
      total.add(line, amount);
      if (visit === null) unattributed += amount;
      let bucket = -1;
      for (let i = 0; i < starts.length && starts[i]! <= line.at; i++) bucket = i;
      if (bucket >= 0) byBucket[bucket]! += amount;
      if (visit === null) continue;
      for (const d of dims) {
        const values = byValue.get(d)!;
        const value = visit.dims[d];
        if (!values.has(value)) values.set(value, new Sums());
        values.get(value)!.add(line, amount);
      }
    }
    return { total, unattributed, byBucket, byValue };
  };
  const main = sumsOf(params.period, report.chart);
  const goalRevenue = await revenueOfGoals(input, lines, anchorOf, (p) =>
    filtered ? (credited.get(p)?.matches ?? false) : true,
  );
  const compare = params.compare ? sumsOf(params.compare, report.compare_chart) : null;
  const kpis = (k: Report['kpis'], s: ReturnType<typeof sumsOf>) => ({
    ...k,
    revenue: s.total.revenue,
    customers: s.total.customers,
    revenue_per_visitor: k.visitors === 0 ? 0 : Math.round(s.total.revenue / k.visitors),
  });
  const breakdowns = { ...report.breakdowns };
  for (const d of dims) {
    const values = main.byValue.get(d)!;
    const rows = report.breakdowns[d]!.map((row) => ({
      ...row,
      revenue: values.get(row.value)?.revenue ?? 0,
      customers: values.get(row.value)?.customers ?? 0,
    }));
    // a value that earned revenue in the period without visits in it (the visit came earlier)
    // still has its row, after those with visits, as long as the breakdown has room
    const shown = new Set(rows.map((row) => row.value));
    const earned = [...values.entries()]
      .filter(([value, sums]) => !shown.has(value) && sums.revenue !== 0)
      .filter(([value]) => !search || (value ?? '').toLowerCase().includes(search))
      .sort(([, a], [, b]) => b.revenue - a.revenue);
    for (const [value, sums] of earned.slice(0, Math.max(0, params.limit - rows.length))) {
      rows.push({
        value,
        visitors: 0,
        visits: 0,
        pageviews: 0,
        bounce_rate: 0,
        visit_duration: 0,
        revenue: sums.revenue,
        customers: sums.customers,
      });
    }
    breakdowns[d] = rows;
  }
  return {
    ...report,
    kpis: kpis(report.kpis, main),
    compare_kpis: report.compare_kpis && compare ? kpis(report.compare_kpis, compare) : report.compare_kpis,
    chart: report.chart.map((point, i) => ({ ...point, revenue: main.byBucket[i] ?? 0 })),
    compare_chart:
      report.compare_chart && compare
        ? report.compare_chart.map((point, i) => ({ ...point, revenue: compare.byBucket[i] ?? 0 }))
        : report.compare_chart,
    breakdowns,
    goal_revenue: goalRevenue,
    revenue: {
      currency: site.currency.toUpperCase(),
      attribution: input.options.model,
      payments: input.options.test ? 'test' : 'live',
      unpriced_currencies: [...unpriced].sort(),
      unattributed: main.unattributed,
    },
  };
}

/**
 * One breakdown in full (`report/breakdown`) with its revenue: the same rules as withRevenue, for
 * the breakdown's totals and, for a visit dimension, each of its rows.
 */
export async function breakdownWithRevenue(
  input: Omit<RevenueInput, 'report'> & { answer: BreakdownAnswer },
): Promise<BreakdownAnswer & { revenue: RevenueSummary }> {
  const { answer, params } = input;
  const visitDim = (VISIT_DIMENSIONS as readonly string[]).includes(answer.dimension);
  const report: Report = {
    time_zone: input.site.timezone,
    period: params.period,
    bucket: params.bucket,
    compare: null,
    kpis: answer.kpis,
    compare_kpis: null,
    chart: [],
    compare_chart: null,
    breakdowns: { pages: [], events: [], ...(visitDim ? { [answer.dimension]: answer.rows } : {}) },
    daily: null,
  };
  const r = await withRevenue({ ...input, report, params: { ...params, compare: null } });
  return {
    ...answer,
    kpis: r.kpis,
    rows: visitDim ? (r.breakdowns[answer.dimension as VisitDimension] ?? answer.rows) : answer.rows,
    revenue: r.revenue,
  };
}

/**
 * Revenue per goal: for each goal, the period's revenue (net of refunds) of sales whose visitor
 * reached it at or before the sale, within the attribution window; with filters, only sales whose
 * credited visit matches them, as for every other revenue number. Null without goals.
 */
async function revenueOfGoals(
  input: RevenueInput,
  lines: { line: Line; day: string; amount: number }[],
  anchorOf: Map<PaymentRow, Anchor | null>,
  counts: (p: PaymentRow) => boolean,
): Promise<number[] | null> {
  const goals = input.goals ?? [];
  if (goals.length === 0 || !input.goalPayers) return null;
  const { from, to } = input.params.period;
  const inPeriod = lines.filter(({ day, line }) => day >= from && day <= to && counts(line.payment));
  const payments = [...new Set(inPeriod.map((l) => l.line.payment))].filter((p) => anchorOf.get(p));
  const reached = await input.goalPayers(
    payments.map((p) => anchorOf.get(p)!),
    goals,
  );
  const byPayment = new Map(payments.map((p, i) => [p, reached[i] ?? []]));
  const out = goals.map(() => 0);
  for (const { line, amount } of inPeriod) {
    for (const g of byPayment.get(line.payment) ?? []) out[g] = (out[g] ?? 0) + amount;
  }
  return out;
}

/**
 * A site's live revenue (tax excluded, less refunds and lost disputes) through the end of `day` in
 * its time zone, in its currency at each payment day's ECB rate; payments in a currency without a
 * rate are left out. With the first live sale (milestones).
 */
export function lifetimeRevenue(
  ctl: ControlDb,
  site: Site,
  rates: RateTable | undefined,
  day: string,
): { amountMinor: number; firstSale: { day: string; amountMinor: number; currency: string } | null } {
  const dayOf = localDay(site.timezone);
  let amountMinor = 0;
  let first: { at: number; line: Line } | null = null;
  for (const line of ledgerLines(ctl, site.id, false)) {
    const lineDay = dayOf(line.at);
    if (lineDay > day) continue;
    if (line.sale && (first === null || line.at < first.at)) first = { at: line.at, line };
    amountMinor += inSiteCurrency(line, site, rates) ?? 0;
  }
  return {
    amountMinor,
    firstSale:
      first === null
        ? null
        : { day: dayOf(first.at), amountMinor: first.line.payment.amount, currency: first.line.currency },
  };
}
