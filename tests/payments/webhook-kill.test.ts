import { loadConfig } from '@footfall/config';
import { openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { createConnection, signCustom } from '@footfall/payments';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { Cluster } from '../durability/cluster.ts';
import { runFootfall } from '../support/footfall.ts';

/**
 * A 200 from the webhook is a promise: webhooks are posted by eight senders while the gateway
 * (`footfall ingest`) is SIGKILLed and restarted; a sender retries whatever got no answer, and
 * re-sends some acknowledged ones on purpose. Every acknowledged webhook must be in the inbox and
 * the ledger exactly once, re-sent ones answered as duplicates, and `footfall payments reprocess`
 * must rebuild the same ledger.
 */
const TOTAL = 400;
const SENDERS = 8;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function openControl(dataDir: string) {
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  return openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
}

describe('payment webhooks through a gateway crash', () => {
  it('keeps every acknowledged webhook exactly once, and reprocess rebuilds the same ledger', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.destroy());
    onTestFailed(() => console.error(cluster.outputTail()));
    const control = openControl(cluster.dataDir);
    const { connection, signingSecret } = createConnection(control, {
      siteId: cluster.site.id,
      provider: 'custom',
    });
    await control.close();

    const bodies = Array.from({ length: TOTAL }, (_, i) =>
      JSON.stringify({
        id: `evt-${i}`,
        type: 'payment',
        at: Date.now() - i * 1000,
        payment: { id: `pay-${i}`, amount: 1000 + i, tax: 100, currency: 'EUR', visitor: `vid-${i % 37}` },
      }),
    );
    const post = async (body: string) => {
      const ts = String(Math.floor(Date.now() / 1000));
      const res = await fetch(`${cluster.url}/webhooks/custom/${connection.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'footfall-timestamp': ts,
          'footfall-signature': signCustom(signingSecret, ts, body),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      return {
        status: res.status,
        json: (await res.json().catch(() => null)) as { duplicate?: boolean } | null,
      };
    };

    const acked = new Set<number>();
    let failures = 0;
    const queue = bodies.map((_, i) => i);
    const sender = async () => {
      const deadline = Date.now() + 90_000;
      while (acked.size < TOTAL && Date.now() < deadline) {
        const i = queue.shift();
        if (i === undefined) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        const r = await post(bodies[i]!).catch(() => ({ status: 0, json: null }));
        if (r.status === 200) acked.add(i);
        else {
          failures++;
          queue.push(i);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };

    await cluster.start('ingest');
    const senders = Array.from({ length: SENDERS }, sender);
    while (acked.size < TOTAL * 0.3) await new Promise((r) => setTimeout(r, 10));
    await cluster.signal('ingest', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    await cluster.start('ingest');
    await Promise.all(senders);
    expect(acked.size).toBe(TOTAL);
    expect(failures, 'sends failed while the gateway was down').toBeGreaterThan(0);

    // acknowledged ones again: each is answered as the duplicate it is
    for (let i = 0; i < TOTAL; i += 10)
      expect((await post(bodies[i]!)).json).toMatchObject({ duplicate: true });
    await cluster.signal('ingest', 'SIGTERM');

    const read = () => {
      const db = openControl(cluster.dataDir);
      try {
        return {
          inbox: db.raw.prepare('SELECT event_id FROM webhook_inbox ORDER BY event_id').all(),
          ledger: db.raw
            .prepare('SELECT payment_id, amount, at FROM ledger_payments ORDER BY payment_id')
            .all() as { payment_id: string }[],
        };
      } finally {
        void db.close();
      }
    };
    const before = read();
    expect(before.inbox).toHaveLength(TOTAL);
    expect(new Set(before.ledger.map((p) => p.payment_id)).size).toBe(TOTAL);
    expect(before.ledger).toHaveLength(TOTAL);

    const reprocess = runFootfall(['payments', 'reprocess', cluster.site.id], {
      FOOTFALL_DATA_DIR: cluster.dataDir,
    });
    expect((await reprocess.exited).code, reprocess.output()).toBe(0);
    expect(reprocess.output()).toMatch(`from ${TOTAL} stored payloads: ${TOTAL} payments`);
    expect(read()).toEqual(before);
  }, 180_000);
});
