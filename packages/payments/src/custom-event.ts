import { AppError, parseInput } from '@footfall/http';
import * as v from 'valibot';

/** Amounts are integers in minor units (cents); a billion units of any currency is past any sale. */
const MAX_AMOUNT = 1e14;
const id = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const amount = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_AMOUNT));
const currency = v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code'));
const optionalText = v.optional(v.pipe(v.string(), v.maxLength(500)));

const PaymentSchema = v.strictObject({
  id,
  amount,
  tax: v.optional(amount, 0),
  currency,
  kind: v.optional(v.picklist(['one_time', 'subscription', 'renewal']), 'one_time'),
  customer_id: optionalText,
  subscription_id: optionalText,
  email: v.optional(v.pipe(v.string(), v.maxLength(320))),
  visitor: v.optional(v.pipe(v.string(), v.maxLength(200))),
});
const RefundSchema = v.strictObject({ id, payment_id: id, amount, currency });
const DisputeSchema = v.strictObject({
  id,
  payment_id: id,
  amount,
  currency,
  status: v.picklist(['open', 'won', 'lost']),
});

/**
 * The body of `POST /webhooks/custom/<connection>` (spec, Custom payment event). Strict: an unknown
 * field is refused, so a typo never silently drops data.
 */
export const CustomEventSchema = v.strictObject({
  id,
  type: v.picklist(['payment', 'refund', 'dispute']),
  at: v.union([v.pipe(v.string(), v.maxLength(40)), v.pipe(v.number(), v.finite())]),
  test: v.optional(v.boolean(), false),
  payment: v.optional(PaymentSchema),
  refund: v.optional(RefundSchema),
  dispute: v.optional(DisputeSchema),
});
export type CustomEventBody = v.InferOutput<typeof CustomEventSchema>;

/** A validated custom event: its time in unix ms and exactly the object its type needs. */
export type CustomEvent =
  | { id: string; at: number; test: boolean; type: 'payment'; payment: CustomEventBody['payment'] & {} }
  | { id: string; at: number; test: boolean; type: 'refund'; refund: CustomEventBody['refund'] & {} }
  | { id: string; at: number; test: boolean; type: 'dispute'; dispute: CustomEventBody['dispute'] & {} };

/** Earliest and latest times accepted: 2000-01-01 to 2100-01-01. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * `at` as unix ms: an RFC 3339 time with its offset, or a number of unix seconds (below 10^11, which
 * is the year 5138) or of unix milliseconds. Throws a 400 naming `at` for anything else.
 */
export function parseAt(at: string | number): number {
  let ms: number;
  if (typeof at === 'number') ms = Math.abs(at) < 1e11 ? at * 1000 : at;
  else if (RFC3339.test(at)) ms = Date.parse(at.replace(' ', 'T'));
  else
    throw new AppError('invalid_body', 'at: must be an RFC 3339 time, unix seconds or unix ms', {
      field: 'at',
    });
  if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms >= LATEST_MS) {
    throw new AppError('invalid_body', 'at: must be a time between 2000 and 2100', { field: 'at' });
  }
  return Math.round(ms);
}

/**
 * Validates a custom event body: the schema, `at`, and the one object its `type` names (and no
 * other). Currency codes come out upper-case. Throws a 400 AppError naming the field.
 */
export function parseCustomEvent(input: unknown): CustomEvent {
  const body = parseInput(CustomEventSchema, input);
  const at = parseAt(body.at);
  const base = { id: body.id, at, test: body.test };
  const others = (['payment', 'refund', 'dispute'] as const).filter((k) => k !== body.type && body[k]);
  if (others.length > 0) {
    throw new AppError('invalid_body', `${others[0]} is not allowed when type is ${body.type}`, {
      field: others[0],
    });
  }
  const missing = () =>
    new AppError('invalid_body', `${body.type} is required when type is ${body.type}`, { field: body.type });
  if (body.type === 'payment') {
    const p = body.payment;
    if (!p) throw missing();
    if (p.tax > p.amount)
      throw new AppError('invalid_body', 'payment.tax: must not exceed payment.amount', {
        field: 'payment.tax',
      });
    return { ...base, type: 'payment', payment: { ...p, currency: p.currency.toUpperCase() } };
  }
  if (body.type === 'refund') {
    const r = body.refund;
    if (!r) throw missing();
    return { ...base, type: 'refund', refund: { ...r, currency: r.currency.toUpperCase() } };
  }
  const d = body.dispute;
  if (!d) throw missing();
  return { ...base, type: 'dispute', dispute: { ...d, currency: d.currency.toUpperCase() } };
}
