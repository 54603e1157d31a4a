import { createSite } from '@footfall/control';
import { tempControlDb } from '@footfall/control/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnection, listConnections, rotateSecret, webhookTarget } from './connections.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('payment connections', () => {
  it('store the signing secret sealed, give it back to the webhook check only, and rotate it', async () => {
    const t = tempControlDb();
    cleanups.push(t.cleanup);
    const site = await createSite(t.ctl, { domain: 'shop.example' });
    const { connection, signingSecret } = createConnection(t.ctl, { siteId: site.id, provider: 'custom' });
    expect(signingSecret).toMatch(/^ffwh_[A-Za-z0-9_-]{43}$/);
    const stored = t.ctl.raw.prepare('SELECT signing_secret FROM payment_connections').get() as {
      signing_secret: string;
    };
    expect(stored.signing_secret).toMatch(/^v1\./);
    expect(stored.signing_secret).not.toContain(signingSecret.slice(5));
    expect(JSON.stringify(listConnections(t.ctl, site.id))).not.toContain(signingSecret);
    expect(webhookTarget(t.ctl, connection.id)?.secret).toBe(signingSecret);
    const rotated = rotateSecret(t.ctl, site.id, connection.id);
    expect(rotated.signingSecret).not.toBe(signingSecret);
    expect(webhookTarget(t.ctl, connection.id)?.secret).toBe(rotated.signingSecret);
    expect(() => rotateSecret(t.ctl, 'othersite', connection.id)).toThrow(/no such payment connection/);
  });
});
