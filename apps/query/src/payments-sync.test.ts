import { createSite } from '@footfall/control';
import { tempControlDb, testClock } from '@footfall/control/testing';
import { createLogger } from '@footfall/http';
import { allConnections, connectProvider } from '@footfall/payments';
import { type FakeApi, stripeKit } from '@footfall/payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsSync } from './payments-sync.ts';

/**
 * The reconciliation schedule (spec: every six hours): a connection with an API key is read back
 * from its provider (Stripe's documented API, answered locally) when it is first due, then not
 * again until six hours after its last attempt.
 */
const HOUR = 3_600_000;
let api: FakeApi;
beforeAll(async () => {
  api = await stripeKit.start();
});
afterAll(() => api?.close());

describe('payments reconciliation', () => {
  it('reads a connection with a key when first due, then six hours after its last attempt', async () => {
    const clock = testClock();
    const control = tempControlDb({ clock });
    try {
      const site = await createSite(control.ctl, { domain: 'shop.example.com' });
      const connection = await connectProvider(control.ctl, {
        siteId: site.id,
        provider: 'stripe',
        apiKey: api.keys.live,
        webhookUrl: (id) => `https://stats.example.com/api/payments/${id}`,
        base: api.url,
      });
      const sync = new PaymentsSync({
        control: control.ctl,
        logger: createLogger({ level: 'silent', name: 'test' }),
        now: clock.now,
        apis: { stripe: api.url },
      });
      const attempted = () =>
        allConnections(control.ctl).find((c) => c.id === connection.id)!.syncAttemptedAt;
      expect(attempted()).toBeNull();
      await sync.pass();
      const first = attempted();
      expect(first).toBe(clock.now());
      // five hours and 59 minutes later: not due
      clock.advance(6 * HOUR - 60_000);
      await sync.pass();
      expect(attempted()).toBe(first);
      // six hours after the last attempt: read again
      clock.advance(60_000);
      await sync.pass();
      expect(attempted()).toBe(clock.now());
      await sync.stop();
    } finally {
      await control.cleanup();
    }
  });
});
