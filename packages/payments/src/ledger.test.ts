import { createSite, deleteSite } from '@footfall/control';
import { tempControlDb, testClock } from '@footfall/control/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnection, deleteConnection, type WebhookTarget, webhookTarget } from './connections.ts';
import { parseCustomEvent } from './custom-event.ts';
import { erasePayer, findPayer } from './erase.ts';
import { receiveWebhook } from './inbox.ts';
import { reprocessLedger } from './ledger.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function ledgerDb(mode: 'live' | 'sandbox' = 'live') {
  const t = tempControlDb({ clock: testClock() });
  cleanups.push(t.cleanup);
  const site = await createSite(t.ctl, { domain: 'shop.example' });
  const { connection } = createConnection(t.ctl, { siteId: site.id, provider: 'custom', environment: mode });
  const target = webhookTarget(t.ctl, connection.id) as WebhookTarget;
  const send = (body: Record<string, unknown>) =>
    receiveWebhook(t.ctl, target, parseCustomEvent(body), Buffer.from(JSON.stringify(body)));
  /** The ledger of the site, without its ids and the inbox row each line came from (that follows arrival). */
  const dump = () => {
    const rows = (table: string, order: string) =>
      (
        t.ctl.raw
          .prepare(`SELECT * FROM ${table} WHERE site_id = ? ORDER BY ${order}`)
          .all(site.id) as Record<string, unknown>[]
      ).map(({ inbox_seq: _seq, connection_id: _c, site_id: _s, ...rest }) => rest);
    return {
      payments: rows('ledger_payments', 'payment_id'),
      refunds: rows('ledger_refunds', 'refund_id'),
      disputes: rows('ledger_disputes', 'dispute_id'),
    };
  };
  return { ...t, site, connection, send, dump };
}

const T = Date.UTC(2026, 0, 10, 12, 0, 0);
const payment = (id: string, over: Record<string, unknown> = {}, at = T) => ({
  id: `evt-${id}-${at}`,
  type: 'payment',
  at,
  payment: { id, amount: 11900, tax: 1900, currency: 'EUR', visitor: 'vid-1', ...over },
});
const refund = (id: string, paymentId: string, amount: number, at: number) => ({
  id: `evt-${id}`,
  type: 'refund',
  at,
  refund: { id, payment_id: paymentId, amount, currency: 'EUR' },
});
const dispute = (id: string, status: string, at: number) => ({
  id: `evt-${id}-${status}-${at}`,
  type: 'dispute',
  at,
  dispute: { id, payment_id: 'pay-1', amount: 11900, currency: 'EUR', status },
});

/** Every order of `items` (a few items only). */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('the ledger', () => {
  it('is the same whatever order the webhooks arrive in, and after a reprocess', async () => {
    const events = [
      payment('pay-1'),
      // the same payment sent again later with a corrected amount: the later one wins
      { ...payment('pay-1', { amount: 12900, tax: 2059 }, T + 60_000) },
      refund('re-1', 'pay-1', 5000, T + 3_600_000),
      dispute('dp-1', 'open', T + 7_200_000),
      dispute('dp-1', 'lost', T + 9_000_000),
    ];
    const dumps: unknown[] = [];
    for (const order of permutations(events)) {
      const l = await ledgerDb();
      for (const e of order) l.send(e);
      dumps.push(l.dump());
      await reprocessLedger(l.ctl, l.site.id);
      expect(l.dump()).toEqual(dumps[0]);
    }
    expect(dumps).toHaveLength(120);
    for (const d of dumps) expect(d).toEqual(dumps[0]);
    expect(dumps[0]).toMatchObject({
      payments: [{ payment_id: 'pay-1', amount: 12900, tax: 2059, at: T + 60_000 }],
      refunds: [{ refund_id: 're-1', payment_id: 'pay-1', amount: 5000 }],
      disputes: [{ dispute_id: 'dp-1', status: 'lost', opened_at: T + 7_200_000, status_at: T + 9_000_000 }],
    });
  });

  it('takes the same event id once: the second delivery is a duplicate and changes nothing', async () => {
    const l = await ledgerDb();
    expect(l.send(payment('pay-1'))).toEqual({ duplicate: false });
    const before = l.dump();
    expect(l.send(payment('pay-1'))).toEqual({ duplicate: true });
    expect(l.dump()).toEqual(before);
    expect(l.ctl.raw.prepare('SELECT count(*) AS n FROM webhook_inbox').get()).toEqual({ n: 1 });
  });

  it('keeps refunds per refund id, never adding one up twice', async () => {
    const l = await ledgerDb();
    l.send(refund('re-1', 'pay-1', 3000, T + 1000));
    l.send(payment('pay-1'));
    l.send({ ...refund('re-1', 'pay-1', 3000, T + 1000), id: 'evt-re-1-again' });
    l.send(refund('re-2', 'pay-1', 2000, T + 2000));
    expect(l.dump().refunds.map((r) => [r.refund_id, r.amount])).toEqual([
      ['re-1', 3000],
      ['re-2', 2000],
    ]);
  });

  it('settles a dispute by its latest event: lost then won is won', async () => {
    const l = await ledgerDb();
    l.send(dispute('dp-1', 'won', T + 3000));
    l.send(dispute('dp-1', 'open', T + 1000));
    l.send(dispute('dp-1', 'lost', T + 2000));
    expect(l.dump().disputes).toMatchObject([{ status: 'won', opened_at: T + 1000, status_at: T + 3000 }]);
  });

  it('marks test events, and every event of a sandbox connection, as test', async () => {
    const live = await ledgerDb();
    live.send({ ...payment('pay-1'), test: true });
    live.send(payment('pay-2'));
    expect(live.dump().payments.map((p) => [p.payment_id, p.test])).toEqual([
      ['pay-1', 1],
      ['pay-2', 0],
    ]);
    const sandbox = await ledgerDb('sandbox');
    sandbox.send(payment('pay-3'));
    expect(sandbox.dump().payments.map((p) => p.test)).toEqual([1]);
  });

  it('stores the e-mail only as a keyed hash outside the inbox', async () => {
    const l = await ledgerDb();
    l.send(payment('pay-1', { email: 'Ada@Example.com' }));
    const [p] = l.dump().payments;
    expect(p!.email_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(l.dump())).not.toContain('example.com');
    const inbox = l.ctl.raw.prepare('SELECT email_hash FROM webhook_inbox').get() as { email_hash: string };
    expect(inbox.email_hash).toBe(p!.email_hash);
  });

  it('forgets a deleted connection: its webhooks and its ledger lines', async () => {
    const l = await ledgerDb();
    l.send(payment('pay-1'));
    l.send(refund('re-1', 'pay-1', 100, T + 1));
    deleteConnection(l.ctl, l.site.id, l.connection.id);
    expect(l.dump()).toEqual({ payments: [], refunds: [], disputes: [] });
    expect(l.ctl.raw.prepare('SELECT count(*) AS n FROM webhook_inbox').get()).toEqual({ n: 0 });
  });

  it('forgets a deleted site: its connections, its webhooks and its ledger', async () => {
    const l = await ledgerDb();
    l.send(payment('pay-1'));
    await deleteSite(l.ctl, l.site.id, async () => {});
    for (const table of ['payment_connections', 'webhook_inbox', 'ledger_payments']) {
      expect(l.ctl.raw.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
    }
  });

  it('keeps who paid from whichever event knew it, in either order (a checkout event, then the charge read back)', async () => {
    const dumps: unknown[] = [];
    const checkout = { ...payment('pay-7', { visitor: 'vid-7', customer_id: 'cus-7' }), id: 'evt-checkout' };
    const charge = {
      ...payment('pay-7', { visitor: undefined, customer_id: undefined, amount: 13900, tax: 0 }, T + 1000),
      id: 'evt-charge',
    };
    for (const order of [
      [checkout, charge],
      [charge, checkout],
    ]) {
      const l = await ledgerDb();
      for (const e of order) l.send(e);
      dumps.push(l.dump());
    }
    expect(dumps[1]).toEqual(dumps[0]);
    expect(dumps[0]).toMatchObject({
      payments: [
        { payment_id: 'pay-7', amount: 13900, visitor: 'vid-7', customer_id: 'cus-7', at: T + 1000 },
      ],
    });
  });

  it('answers a data request: every payload of the payer loses its personal fields, the amounts stay', async () => {
    const l = await ledgerDb();
    const sub = { customer_id: 'cus-9', subscription_id: 'sub-9' };
    l.send(payment('pay-1', { email: 'Ada@Example.com', kind: 'subscription', ...sub }));
    // a renewal without the e-mail: the same person through the customer graph
    l.send(payment('pay-2', { visitor: undefined, kind: 'renewal', ...sub }, T + 86_400_000));
    l.send(payment('pay-3', { email: 'bob@example.com', visitor: 'vid-bob' }));
    // looked up first, nothing changes; the erasure then touches exactly what was found
    const before = l.dump();
    expect(await findPayer(l.ctl, 'ada@example.COM ')).toEqual({
      payloads: 2,
      sites: [l.site.id],
      payments: 2,
    });
    expect(await findPayer(l.ctl, 'nobody@example.com')).toEqual({ payloads: 0, sites: [], payments: 0 });
    expect(l.dump()).toEqual(before);
    const erased = await erasePayer(l.ctl, 'ada@example.COM ');
    expect(erased).toEqual({ payloads: 2, sites: [l.site.id], payments: 2 });
    const bodies = (
      l.ctl.raw.prepare('SELECT body FROM webhook_inbox ORDER BY seq').all() as { body: Buffer }[]
    ).map((r) => r.body.toString('utf8'));
    expect(bodies.join('\n')).not.toMatch(/Ada@Example|cus-9|sub-9|vid-1/);
    expect(bodies[2]).toContain('bob@example.com');
    expect(
      l.dump().payments.map((p) => [p.payment_id, p.amount, p.email_hash !== null, p.customer_id, p.visitor]),
    ).toEqual([
      ['pay-1', 11900, false, null, null],
      ['pay-2', 11900, false, null, null],
      ['pay-3', 11900, true, null, 'vid-bob'],
    ]);
    // a rebuild gives the same ledger: the inbox no longer holds what was erased
    const after = l.dump();
    await reprocessLedger(l.ctl, l.site.id);
    expect(l.dump()).toEqual(after);
  });
});
