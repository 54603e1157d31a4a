import { AppError } from '@footfall/http';
import { describe, expect, it } from 'vitest';
import { parseAt, parseCustomEvent } from './custom-event.ts';
import { checkCustomSignature, signCustom } from './signature.ts';

const error = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected an error');
};
const pay = { id: 'p1', amount: 1000, tax: 190, currency: 'eur' };

describe('a custom payment event', () => {
  it('reads `at` as RFC 3339, unix seconds or unix ms', () => {
    const ms = Date.UTC(2026, 0, 10, 12, 0, 0);
    expect(parseAt('2026-01-10T12:00:00Z')).toBe(ms);
    expect(parseAt('2026-01-10T13:00:00+01:00')).toBe(ms);
    expect(parseAt(ms / 1000)).toBe(ms);
    expect(parseAt(ms)).toBe(ms);
    for (const bad of ['2026-01-10', 'yesterday', '1999-12-31T23:59:59Z', 0]) {
      expect(error(() => parseAt(bad))).toMatchObject({ code: 'invalid_body', field: 'at' });
    }
  });

  it('needs the object its type names, and no other', () => {
    const ok = parseCustomEvent({ id: 'e1', type: 'payment', at: 1767000000, payment: pay });
    expect(ok).toMatchObject({
      type: 'payment',
      test: false,
      payment: { currency: 'EUR', kind: 'one_time' },
    });
    expect(
      error(() => parseCustomEvent({ id: 'e1', type: 'refund', at: 1767000000, payment: pay })),
    ).toMatchObject({
      field: 'payment',
    });
    expect(error(() => parseCustomEvent({ id: 'e1', type: 'payment', at: 1767000000 }))).toMatchObject({
      field: 'payment',
    });
  });

  it('refuses what cannot be a payment, naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...pay, amount: 10.5 }, 'payment.amount'],
      [{ ...pay, amount: -1 }, 'payment.amount'],
      [{ ...pay, tax: 2000 }, 'payment.tax'],
      [{ ...pay, currency: 'euro' }, 'payment.currency'],
      [{ ...pay, kind: 'gift' }, 'payment.kind'],
      [{ ...pay, colour: 'red' }, 'payment.colour'],
    ];
    for (const [payment, field] of cases) {
      const e = error(() => parseCustomEvent({ id: 'e1', type: 'payment', at: 1767000000, payment }));
      expect(e).toBeInstanceOf(AppError);
      expect(e.field, JSON.stringify(payment)).toBe(field);
    }
    expect(error(() => parseCustomEvent({ id: '', type: 'payment', at: 1, payment: pay })).field).toBe('id');
  });
});

describe('the custom signature', () => {
  const secret = 'ffwh_secret';
  const body = Buffer.from('{"id":"e1"}');
  const now = 1_767_000_000_000;
  const ts = String(now / 1000);
  const check = (over: Partial<Parameters<typeof checkCustomSignature>[0]>) =>
    checkCustomSignature({
      secret,
      timestamp: ts,
      signature: signCustom(secret, ts, body),
      body,
      nowMs: now,
      ...over,
    });

  it('accepts the HMAC of "<timestamp>.<body>", also beside an old one while rotating', () => {
    expect(check({})).toBeNull();
    expect(check({ signature: `v1=${'0'.repeat(64)}, ${signCustom(secret, ts, body)}` })).toBeNull();
  });

  it('refuses a missing header, a timestamp more than five minutes off, another body or key', () => {
    expect(check({ signature: undefined })?.code).toBe('missing');
    expect(check({ timestamp: String(now / 1000 - 301) })?.code).toBe('stale');
    expect(check({ timestamp: String(now / 1000 + 301) })?.code).toBe('stale');
    expect(
      check({
        timestamp: String(now / 1000 - 299),
        signature: signCustom(secret, String(now / 1000 - 299), body),
      }),
    ).toBeNull();
    expect(check({ body: Buffer.from('{"id":"e2"}') })?.code).toBe('mismatch');
    expect(check({ signature: signCustom('other', ts, body) })?.code).toBe('mismatch');
    expect(check({ signature: 'v1=abc' })?.code).toBe('mismatch');
  });
});
