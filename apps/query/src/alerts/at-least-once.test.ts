import { alertState, createCipher, deliveriesOf, installCheckOf } from '@footfall/control';
import { createConnection } from '@footfall/payments';
import { describe, expect, it } from 'vitest';
import {
  alerts,
  clock,
  control,
  DAY,
  kinds,
  received,
  site,
  useAlertsHarness,
  visits,
  webhook,
} from './test-support.ts';

/**
 * Alerts are delivered at least once (docs/alerts.md): a rule records what it has told of in the
 * transaction that queues the alert, so when queueing fails (a full disk, or the service killed
 * before the commit) nothing is recorded and the next pass raises the alert again, once.
 */
useAlertsHarness();

/**
 * Makes every insert of a delivery fail until the answer is called: the pass between is as one
 * the service was killed in after the rule had looked, before anything was queued.
 */
function failDeliveries(): () => void {
  control.ctl.raw.exec(
    `CREATE TEMP TRIGGER fail_delivery BEFORE INSERT ON alert_deliveries
     BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
  );
  return () => control.ctl.raw.exec('DROP TRIGGER temp.fail_delivery');
}

async function tickFailing(): Promise<void> {
  const heal = failDeliveries();
  try {
    await alerts.tick();
  } finally {
    heal();
  }
}

describe('an alert whose queueing failed', () => {
  it('is raised on the next pass: someone paid', async () => {
    await webhook(['payment']);
    const { connection } = createConnection(control.ctl, { siteId: site.id, provider: 'custom' });
    const pay = (id: string, seq: number, amount: number) =>
      control.ctl.raw
        .prepare(
          `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind, test, inbox_seq)
           VALUES (?, ?, ?, ?, ?, 0, 'USD', 'one_time', 0, ?)`,
        )
        .run(connection.id, id, site.id, clock.now(), amount, seq);
    const told = () => control.ctl.raw.prepare('SELECT payment_id FROM alert_payments_told').all();
    await alerts.tick(); // the first look
    expect(alertState(control.ctl, site.id, 'payment_seq')).toBe('0');
    pay('p1', 10, 4900);
    await tickFailing();
    expect(kinds()).toEqual([]);
    // neither the cursor nor the payment's mark moved: it is still news
    expect(alertState(control.ctl, site.id, 'payment_seq')).toBe('0');
    expect(told()).toEqual([]);
    await alerts.tick();
    expect(kinds()).toEqual(['payment:-']);
    expect(received[0]!.message.data).toMatchObject({ payments: 1, amount_minor: 4900 });
    expect(alertState(control.ctl, site.id, 'payment_seq')).toBe('10');
    expect(told()).toEqual([{ payment_id: 'p1' }]);
    await alerts.tick();
    expect(kinds()).toHaveLength(1);
    expect(await deliveriesOf(control.ctl, received[0]!.message.id)).toHaveLength(1);
  });

  it('is raised on the next pass: a busy day', async () => {
    await webhook(['busy_day']);
    const today = Date.UTC(2026, 10, 26, 9);
    for (const weeks of [1, 2, 3, 4]) await visits(today - weeks * 7 * DAY, 10, `w${weeks}-`);
    await visits(today, 40, 'today-');
    await tickFailing();
    expect(kinds()).toEqual([]);
    expect(alertState(control.ctl, site.id, 'busy_day')).toBeUndefined();
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']);
    expect(received[0]!.message.data).toEqual({ day: '2026-11-26', visitors: 40, usual: 10 });
    clock.advance(16 * 60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['busy_day:-']);
  });

  it('is raised on the next pass: a health problem started and cleared', async () => {
    const { ctl } = control;
    await webhook(['health']);
    await alerts.tick();
    const mine = (
      ctl.raw.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string }
    ).value;
    const setKeyCheck = (value: string) =>
      ctl.raw.prepare("UPDATE meta SET value = ? WHERE key = 'key_check'").run(value);
    expect(alertState(ctl, '*', 'health:key_mismatch')).toBe('0');
    setKeyCheck(createCipher('another-secret-0123456789abcdef').sealText('footfall', 'key-check'));
    await tickFailing();
    expect(kinds()).toEqual([]);
    expect(alertState(ctl, '*', 'health:key_mismatch')).toBe('0');
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['health:started']);
    setKeyCheck(mine);
    await tickFailing();
    expect(kinds()).toEqual(['health:started']);
    expect(alertState(ctl, '*', 'health:key_mismatch')).toBe('1');
    await alerts.tick();
    await alerts.tick();
    expect(kinds()).toEqual(['health:started', 'health:cleared']);
  });

  it('is raised on the next pass: tracking stopped, and resumed', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 3);
    await tickFailing();
    expect(kinds()).toEqual([]);
    // the check is recorded with its alert: it runs again on the next pass
    expect(installCheckOf(control.ctl, site.id)).toBeUndefined();
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    await visits(clock.now(), 1, 'back-');
    clock.advance(60_000);
    await tickFailing();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).not.toBeNull();
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started', 'tracking_stopped:cleared']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).toBeNull();
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toHaveLength(2);
  });

  it('is raised on the next pass: a milestone reached, stored with its alert', async () => {
    await webhook(['milestone']);
    await visits(clock.now() - DAY, 120);
    const stored = () => control.ctl.raw.prepare('SELECT kind FROM milestones ORDER BY kind').pluck().all();
    await tickFailing();
    expect(kinds()).toEqual([]);
    // the milestones went with their alerts: the check finds them again
    expect(stored()).toEqual([]);
    await alerts.tick();
    expect(kinds()).toEqual(['milestone:-', 'milestone:-']);
    expect(stored()).toEqual(['pageviews', 'visitors']);
    await alerts.tick();
    expect(kinds()).toHaveLength(2);
  });
});
