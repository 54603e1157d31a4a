import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSite, type Site } from '@footfall/control';
import { tempControlDb } from '@footfall/control/testing';
import {
  createConnection,
  createRateTable,
  parseCustomEvent,
  parseEcbXml,
  receiveWebhook,
  webhookTarget,
} from '@footfall/payments';
import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histStyleXml } from '../../../packages/payments/src/rates-test-support.ts';
import { createDuckDbEngine } from './engine/duckdb-engine.ts';
import type { Engine } from './engine/engine.ts';
import type { GoalMatch } from './engine/goals-sql.ts';
import { parseReportParams } from './engine/report-params.ts';
import { ev, onStream } from './engine/test-fixtures.ts';
import { breakdownWithRevenue, type RevenueOptions, withRevenue } from './revenue.ts';

/**
 * Revenue at read time, on scripted visits and sales whose revenue per channel is known:
 * last non-direct visit within 90 days, the first visit with attr=first, renewals credited like
 * their subscription's first payment, refunds (tax share) and lost disputes subtracted, ECB
 * conversion, an unpriced currency named, test payments apart, filters.
 */
let dir: string;
let engine: Engine;
let site: Site;
let control: Awaited<ReturnType<typeof tempControlDb>>;

const at = (iso: string) => Date.parse(iso);
let n = 0;
function send(type: string, at_: string, body: Record<string, unknown>, test = false) {
  const target = webhookTarget(control.ctl, connectionId)!;
  const raw = { id: `evt-${++n}`, type, at: at_, test, [type]: body };
  receiveWebhook(control.ctl, target, parseCustomEvent(raw), Buffer.from(JSON.stringify(raw)));
}
let connectionId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-revenue-'));
  control = tempControlDb();
  site = await createSite(control.ctl, { domain: 'shop.example', currency: 'EUR', timezone: 'UTC' });
  connectionId = createConnection(control.ctl, { siteId: site.id, provider: 'custom' }).connection.id;
  engine = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
  });
  const visit = (iso: string, visitor: string, channel: WalEvent['channel']) =>
    ev(iso, { site: site.id, visitor, channel });
  const visits = [
    visit('2026-02-20T10:00:00Z', 'alice', 'Email'),
    visit('2026-03-01T10:00:00Z', 'alice', 'Organic Search'),
    visit('2026-03-10T10:00:00Z', 'alice', 'Direct'),
    // 129 days before bob's sale: out of the 90-day window
    visit('2025-11-01T10:00:00Z', 'bob', 'Referral'),
    visit('2026-03-09T10:00:00Z', 'bob', 'Direct'),
    visit('2026-03-05T09:00:00Z', 'carol', 'Paid Search'),
    // carol signs up before she subscribes; alice reads the pricing before she pays
    ev('2026-03-05T09:05:00Z', {
      site: site.id,
      visitor: 'carol',
      channel: 'Paid Search',
      kind: 'ev',
      name: 'Signup',
    }),
    ev('2026-03-10T10:05:00Z', { site: site.id, visitor: 'alice', channel: 'Direct', path: '/pricing' }),
    visit('2026-03-24T09:00:00Z', 'carol', 'Organic Social'),
    visit('2026-03-12T08:00:00Z', 'dave', 'Referral'),
    visit('2026-03-11T08:00:00Z', 'frank', 'Email'),
    // the window's edge, for sales on 2026-06-10 at 12:00: 89 days before is in, 91 out
    visit('2026-03-13T12:00:00Z', 'gina', 'Referral'),
    visit('2026-06-01T12:00:00Z', 'gina', 'Direct'),
    visit('2026-03-11T12:00:00Z', 'hank', 'Organic Social'),
    visit('2026-06-01T12:00:00Z', 'hank', 'Direct'),
    // providers date payments to the second: ivy's visit began in the second she paid, jack's after
    visit('2026-07-01T12:00:00.600Z', 'ivy', 'Organic Search'),
    visit('2026-07-01T12:00:01.200Z', 'jack', 'Referral'),
  ].sort((a, b) => a.at - b.at);
  await engine.applyBatch({ records: onStream('a', visits) });

  // alice's partial refund arrives before her payment
  send('refund', '2026-03-15T12:00:00Z', { id: 're-a', payment_id: 'pay-a', amount: 5950, currency: 'EUR' });
  send('payment', '2026-03-10T10:30:00Z', {
    id: 'pay-a',
    amount: 11900,
    tax: 1900,
    currency: 'EUR',
    visitor: 'alice',
  });
  send('payment', '2026-03-10T11:00:00Z', { id: 'pay-b', amount: 2000, currency: 'EUR', visitor: 'bob' });
  send('dispute', '2026-03-18T00:00:00Z', {
    id: 'dp-b',
    payment_id: 'pay-b',
    amount: 2000,
    currency: 'EUR',
    status: 'lost',
  });
  const sub = { currency: 'EUR', customer_id: 'cus-c', subscription_id: 'sub-c' };
  send('payment', '2026-03-05T09:10:00Z', {
    id: 'pay-c1',
    amount: 3000,
    kind: 'subscription',
    visitor: 'carol',
    ...sub,
  });
  send('payment', '2026-03-25T09:10:00Z', { id: 'pay-c2', amount: 3000, kind: 'renewal', ...sub });
  send('payment', '2026-03-12T09:00:00Z', { id: 'pay-d', amount: 10400, currency: 'USD', visitor: 'dave' });
  send('dispute', '2026-03-20T00:00:00Z', {
    id: 'dp-d',
    payment_id: 'pay-d',
    amount: 10400,
    currency: 'USD',
    status: 'lost',
  });
  send('dispute', '2026-03-22T00:00:00Z', {
    id: 'dp-d',
    payment_id: 'pay-d',
    amount: 10400,
    currency: 'USD',
    status: 'won',
  });
  send('payment', '2026-03-13T09:00:00Z', { id: 'pay-e', amount: 777, currency: 'XYZ', visitor: 'erin' });
  send(
    'payment',
    '2026-03-11T08:30:00Z',
    { id: 'pay-f', amount: 500, currency: 'EUR', visitor: 'frank' },
    true,
  );
  send('payment', '2026-06-10T12:00:00Z', { id: 'pay-g', amount: 700, currency: 'EUR', visitor: 'gina' });
  send('payment', '2026-06-10T12:00:00Z', { id: 'pay-h', amount: 900, currency: 'EUR', visitor: 'hank' });
  send('payment', '2026-07-01T12:00:00Z', { id: 'pay-i', amount: 400, currency: 'EUR', visitor: 'ivy' });
  send('payment', '2026-07-01T12:00:00Z', { id: 'pay-j', amount: 300, currency: 'EUR', visitor: 'jack' });
}, 60_000);
afterAll(async () => {
  engine?.close();
  await control.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const rates = createRateTable(
  parseEcbXml(histStyleXml({ '2026-03-12': { USD: '1.0400' }, '2026-03-11': { USD: '1.0300' } })),
);

async function revenue(
  query: Record<string, string | string[]>,
  options: Partial<RevenueOptions> = {},
  goals: GoalMatch[] = [],
) {
  const params = parseReportParams(
    { from: '2026-03-01', to: '2026-03-31', ...query },
    'UTC',
    at('2026-04-02T00:00:00Z'),
  );
  const report = await engine.report({ site: site.id, timeZone: 'UTC', params });
  const model = options.model ?? 'last';
  return withRevenue({
    control: control.ctl,
    rates,
    site,
    report,
    params,
    options: { model, test: options.test ?? false },
    attribute: (anchors) => engine.attribute({ site: site.id, anchors, model, filters: params.filters }),
    goals,
    goalPayers: (anchors, list) => engine.goalPayers({ site: site.id, anchors, goals: list }),
  });
}

const byChannel = (r: Awaited<ReturnType<typeof revenue>>) =>
  Object.fromEntries(
    (r.breakdowns.channel ?? [])
      .map((row) => [row.value, (row as unknown as { revenue: number }).revenue])
      .filter(([, v]) => v !== 0),
  );

describe('revenue of a report', () => {
  it('credits each sale to the last non-direct visit within 90 days, net of refunds and lost disputes', async () => {
    const r = await revenue({});
    expect(byChannel(r)).toEqual({
      // 10000 sold, 5000 refunded (5950 with its 950 of tax)
      'Organic Search': 5000,
      // the first payment and the renewal, both from the visit that started the subscription
      'Paid Search': 6000,
      // 10400 USD at 1.04 on the day; the dispute was lost, then won
      Referral: 10000,
    });
    // bob's referral visit is 129 days old: his sale goes to his direct visit, and his lost dispute with it
    expect(r.kpis).toMatchObject({ revenue: 21000, customers: 4 });
    expect(r.revenue).toEqual({
      currency: 'EUR',
      attribution: 'last',
      payments: 'live',
      unpriced_currencies: ['XYZ'],
      unattributed: 0,
    });
  });

  it('looks back 90 days for a non-direct visit: 89 days before counts, 91 days before does not', async () => {
    const r = await revenue({ from: '2026-06-10', to: '2026-06-10' });
    expect(byChannel(r)).toEqual({ Referral: 700, Direct: 900 });
  });

  it('credits a visit that began in the same second as the payment, never one after it', async () => {
    const r = await revenue({ from: '2026-07-01', to: '2026-07-01' });
    expect(byChannel(r)).toEqual({ 'Organic Search': 400 });
    expect(r.revenue).toMatchObject({ unattributed: 300 });
  });

  it('credits the visit that found the visitor with attr=first, and the total does not change', async () => {
    const last = await revenue({});
    const first = await revenue({}, { model: 'first' });
    expect(first.kpis).toMatchObject({ revenue: (last.kpis as { revenue?: number }).revenue });
    expect(byChannel(first)).toEqual({ Email: 5000, 'Paid Search': 6000, Referral: 10000 });
  });

  it('puts revenue in the chart bucket of each line, refunds and disputes on their own day', async () => {
    const r = await revenue({ bucket: 'day' });
    const day = (d: string) =>
      (r.chart.find((p) => p.bucket === d) as unknown as { revenue: number }).revenue;
    expect(day('2026-03-10')).toBe(12000);
    expect(day('2026-03-15')).toBe(-5000);
    expect(day('2026-03-18')).toBe(-2000);
    expect(day('2026-03-25')).toBe(3000);
    expect(r.chart.reduce((s, p) => s + (p as unknown as { revenue: number }).revenue, 0)).toBe(21000);
  });

  it('honours filters: only sales credited to matching visits', async () => {
    const r = await revenue({ f: 'channel:Paid Search' });
    expect(r.kpis).toMatchObject({ revenue: 6000, customers: 1 });
  });

  it('says what the people who reached each goal paid, before the sale and within 90 days', async () => {
    const goals: GoalMatch[] = [
      { kind: 'page', match: '/', prop: null },
      { kind: 'page', match: '/pricing', prop: null },
      { kind: 'event', match: 'Signup', prop: null },
      { kind: 'event', match: 'Purchase', prop: null },
    ];
    // every payer saw /: alice 5000 (net of her refund), bob 0 (dispute lost), carol 6000, dave 10000
    expect((await revenue({}, {}, goals)).goal_revenue).toEqual([21000, 5000, 6000, 0]);
    // with a filter, only sales credited to a matching visit
    expect((await revenue({ f: 'channel:Paid Search' }, {}, goals)).goal_revenue).toEqual([6000, 0, 6000, 0]);
    expect((await revenue({})).goal_revenue).toBeNull();
  });

  it('shows test payments instead of live ones with payments=test', async () => {
    const r = await revenue({}, { test: true });
    expect(r.kpis).toMatchObject({ revenue: 500, customers: 1 });
    expect(byChannel(r)).toEqual({ Email: 500 });
  });

  it('leaves a currency without a rate out of every number and names it', async () => {
    const r = await revenue({ from: '2026-03-13', to: '2026-03-13' });
    expect(r.kpis).toMatchObject({ revenue: 0 });
    expect(r.revenue.unpriced_currencies).toEqual(['XYZ']);
  });

  it('gives a breakdown in full its revenue, searched rows included', async () => {
    const params = parseReportParams(
      { from: '2026-06-10', to: '2026-06-10', limit: '100' },
      'UTC',
      at('2026-07-02T00:00:00Z'),
    );
    const answer = await engine.breakdown({
      site: site.id,
      timeZone: 'UTC',
      params,
      name: 'channel',
      search: 'refer',
    });
    const r = await breakdownWithRevenue({
      control: control.ctl,
      rates,
      site,
      answer,
      params,
      options: { model: 'last', test: false },
      search: 'refer',
      attribute: (anchors) =>
        engine.attribute({ site: site.id, anchors, model: 'last', filters: params.filters }),
    });
    // both sales are in the totals; only the row the search keeps is shown
    expect(r.kpis).toMatchObject({ revenue: 1600, customers: 2 });
    expect(r.rows).toMatchObject([{ value: 'Referral', visitors: 0, revenue: 700 }]);
  });
});
