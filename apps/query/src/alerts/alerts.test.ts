import { createServer } from 'node:http';
import { loadConfig } from '@footfall/config';
import {
  ALERT_RETRY_DELAYS_MS,
  createAlertDestination,
  createCipher,
  createSite,
  deliveriesOf,
} from '@footfall/control';
import { prepareInstance } from '@footfall/instance';
import { checkCustomSignature, createConnection } from '@footfall/payments';
import { describe, expect, it } from 'vitest';
import {
  alerts,
  clock,
  control,
  DAY,
  kinds,
  received,
  receiverPort,
  reconfigure,
  site,
  t,
  useAlertsHarness,
  visits,
  webhook,
} from './test-support.ts';

/** The alert rules and their delivery, with real data (set up in ./test-support.ts). */
useAlertsHarness();

describe('alerts', () => {
  it('signs each webhook post so the receiver can check it, with the documented body', async () => {
    const { destination, secret } = await webhook();
    const error = await alerts.test(site, destination.id);
    expect(error).toBeNull();
    expect(received).toHaveLength(1);
    const [r] = received;
    expect(r!.path).toBe('/hook/secret-path-token');
    expect(r!.headers['content-type']).toBe('application/json');
    expect(r!.headers['footfall-alert-id']).toBe(r!.message.id);
    expect(
      checkCustomSignature({
        secret: secret!,
        timestamp: r!.headers['footfall-timestamp'] as string,
        signature: r!.headers['footfall-signature'] as string,
        body: Buffer.from(r!.body),
        nowMs: Date.now(),
      }),
    ).toBeNull();
    expect(r!.message).toMatchObject({
      kind: 'test',
      state: null,
      site: { id: site.id, domain: 'example.com' },
      url: `https://footfall.example.com/sites/${site.id}`,
    });
    expect(Object.keys(r!.message).sort()).toEqual([
      'at',
      'data',
      'id',
      'kind',
      'site',
      'state',
      'text',
      'title',
      'url',
    ]);
  });

  it('sends a busy day once, when today has twice the usual visitors of the weekday and 20 more', async () => {
    await webhook(['busy_day']);
    const today = Date.UTC(2026, 10, 26, 9);
    for (const weeks of [1, 2, 3, 4]) await visits(today - weeks * 7 * DAY, 10, `w${weeks}-`);
    // other weekdays are busier, and do not count
    await visits(today - 1 * DAY, 60, 'wed-');
    await visits(today, 29, 'today-');
    await alerts.tick();
    expect(kinds()).toEqual([]); // 29 < 10 + 20
    await visits(today + 3600_000, 1, 'late-');
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']);
    expect(received[0]!.message.data).toEqual({ day: '2026-11-26', visitors: 30, usual: 10 });
    expect(received[0]!.message.title).toBe('example.com is having a busy day: 30 visitors so far');
    await visits(today + 2 * 3600_000, 40, 'more-');
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']); // once a day
  });

  it('has no busy day before the site has two weeks of the weekday behind it', async () => {
    await webhook(['busy_day']);
    const today = Date.UTC(2026, 10, 26, 9);
    await visits(today - 7 * DAY, 1);
    await visits(today, 100);
    await alerts.tick();
    expect(kinds()).toEqual([]);
  });

  it('sends the disk filling once when it starts and once when it clears, to destinations of every site', async () => {
    // the threshold is configuration: an instance whose every disk is filling
    await reconfigure({ FOOTFALL_DISK_ALERT_DAYS: '100000000' });
    await webhook(['disk_filling']);
    const other = await createSite(control.ctl, { domain: 'other.example' });
    await createAlertDestination(control.ctl, other.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/hook/secret-path-token`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['disk_filling'],
    });
    await visits(clock.now() - DAY, 50);
    await alerts.tick();
    await alerts.tick();
    // one post, although two sites list the same URL
    expect(kinds()).toEqual(['disk_filling:started']);
    expect(received[0]!.message.site).toBeNull();
    expect(received[0]!.message.data).toMatchObject({ threshold_days: 100000000 });
    // the same disk measured against a threshold it passes by far (as after making room)
    await reconfigure({ FOOTFALL_DISK_ALERT_DAYS: '1' });
    clock.advance(2 * 60_000);
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['disk_filling:started', 'disk_filling:cleared']);
  });

  it('sends a health problem when it starts and when it clears, and nothing while nobody receives it', async () => {
    const { ctl } = control;
    const keyCheck = () =>
      ctl.raw.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string };
    await alerts.tick(); // nobody receives health: nothing is sent
    expect(keyCheck()).toBeDefined();
    const mine = keyCheck().value;
    // the data was sealed with another key
    ctl.raw
      .prepare("UPDATE meta SET value = ? WHERE key = 'key_check'")
      .run(createCipher('another-secret-0123456789abcdef').sealText('footfall', 'key-check'));
    await alerts.tick();
    expect(kinds()).toEqual([]);
    // a destination added during the problem hears that it started
    await webhook(['health']);
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['health:started']);
    expect(received[0]!.message.data).toMatchObject({ condition: 'key_mismatch' });
    ctl.raw.prepare("UPDATE meta SET value = ? WHERE key = 'key_check'").run(mine);
    await alerts.tick();
    expect(kinds()).toEqual(['health:started', 'health:cleared']);
  });

  it('sends a gateway refusing events (disk full) when it starts and when it clears', async () => {
    await webhook(['health']);
    // a gateway's status socket, as apps/ingest answers it
    let availability = { state: 'refusing', reason: 'no space left on device' };
    const run = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: `${control.dir}/data` })).paths.run;
    const gateway = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ stream: 'gw1', availability })),
    );
    await new Promise<void>((resolve) => gateway.listen(`${run}/ingest-gw1.sock`, resolve));
    try {
      await alerts.tick();
      expect(kinds()).toEqual(['health:started']);
      expect(received[0]!.message.data).toEqual({
        condition: 'wal_refusing',
        reason: 'gw1: no space left on device',
      });
      await alerts.tick();
      availability = { state: 'accepting', reason: '' };
      await alerts.tick();
      expect(kinds()).toEqual(['health:started', 'health:cleared']);
    } finally {
      await new Promise((r) => gateway.close(r));
    }
  });

  it('tells of each live payment once, in the site currency, even when a sync sees it again', async () => {
    await webhook(['payment']);
    const { connection } = createConnection(control.ctl, { siteId: site.id, provider: 'custom' });
    const pay = (id: string, seq: number, amount: number, test = 0) =>
      control.ctl.raw
        .prepare(
          `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind, test, inbox_seq)
           VALUES (?, ?, ?, ?, ?, 0, 'USD', 'one_time', ?, ?)
           ON CONFLICT (connection_id, payment_id) DO UPDATE SET inbox_seq = excluded.inbox_seq`,
        )
        .run(connection.id, id, site.id, clock.now(), amount, test, seq);
    pay('before', 1, 999);
    await alerts.tick(); // the first look: what is already there is not news
    expect(kinds()).toEqual([]);
    pay('p1', 10, 4900);
    pay('sandbox', 11, 100, 1);
    await alerts.tick();
    expect(kinds()).toEqual(['payment:-']);
    expect(received[0]!.message).toMatchObject({
      title: 'example.com: someone paid $49.00',
      data: { payments: 1, amount_minor: 4900, currency: 'USD' },
    });
    // a sync stores p1 again (its row's inbox_seq moves on), and p2 arrives
    pay('p1', 20, 4900);
    pay('p2', 21, 1500);
    await alerts.tick();
    expect(kinds()).toEqual(['payment:-', 'payment:-']);
    expect(received[1]!.message.data).toMatchObject({ payments: 1, amount_minor: 1500 });
    await alerts.tick();
    expect(kinds()).toHaveLength(2);
  });

  it('sends Milestone reached only to destinations that asked for it, once per milestone', async () => {
    await webhook(); // every other kind
    await createAlertDestination(control.ctl, site.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/milestones`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['milestone'],
    });
    await visits(clock.now() - DAY, 120);
    await alerts.tick();
    const told = received.filter((r) => r.message.kind === 'milestone');
    expect(new Set(received.map((r) => r.path))).toEqual(new Set(['/milestones']));
    expect(told.map((r) => r.message.title).sort()).toEqual([
      'example.com reached 100 pageviews',
      'example.com reached 100 visitors',
    ]);
    expect(told[0]!.message.data).toMatchObject({ day: '2026-11-25', value: 120 });
    await alerts.tick();
    expect(received.filter((r) => r.message.kind === 'milestone')).toHaveLength(2);
  });

  it('retries a failed delivery after 30 s, 2 min, 10 min, 1 h and 6 h, then gives up', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 1);
    t.failNext = 2;
    await alerts.tick();
    expect(received).toHaveLength(0);
    clock.advance(ALERT_RETRY_DELAYS_MS[0]!);
    await alerts.drain();
    expect(received).toHaveLength(0);
    clock.advance(ALERT_RETRY_DELAYS_MS[1]!);
    await alerts.drain();
    expect(received).toHaveLength(1);
    const [sent] = await deliveriesOf(control.ctl, received[0]!.message.id);
    expect(sent).toMatchObject({ state: 'sent', attempts: 3 });
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(2);
    expect(alerts.counts.sent.get('tracking_stopped|webhook')).toBe(1);

    // a receiver that never takes it: six attempts, then given up
    await visits(clock.now(), 1, 'back-');
    t.failNext = 100;
    await alerts.tick();
    for (const delay of ALERT_RETRY_DELAYS_MS) {
      clock.advance(delay);
      await alerts.drain();
    }
    expect(alerts.counts.givenUp.get('tracking_stopped|webhook')).toBe(1);
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(2 + 6);
    clock.advance(DAY);
    await alerts.drain();
    expect(alerts.counts.attemptsFailed.get('tracking_stopped|webhook')).toBe(8);
  });

  it('refuses a redirect to a private address at delivery', async () => {
    const made = await createAlertDestination(control.ctl, site.id, {
      channel: 'webhook',
      target: `http://127.0.0.1:${receiverPort}/moved`,
      host: `127.0.0.1:${receiverPort}`,
      kinds: ['health'],
    });
    const error = await alerts.test(site, made.destination.id);
    expect(error).toBe('refused: a loopback address');
  });
});
