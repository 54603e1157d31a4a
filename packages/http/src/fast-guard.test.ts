import { CrawlHitSchema, IngestEventSchema, LIMITS } from '@footfall/schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../tests/durability/plan.ts';
import { compileGuard, UnsupportedSchemaError } from './fast-guard.ts';
import { parseInput } from './validate.ts';

const BASES: Record<string, unknown>[] = [
  { s: 'site1', k: 'pv', u: 'https://example.com/', i: 'abcdefgh12' },
  {
    s: 'site1',
    k: 'ev',
    u: 'https://example.com/docs?utm_source=x',
    r: 'https://www.google.com/',
    i: 'b42x1x9a8b7c',
    n: 'Signup',
    p: { plan: 'pro', seats: 3, trial: false },
    v: 'v1visitor0',
    w: 1440,
    h: 900,
  },
  { s: 'site1', k: 'en', u: 'https://example.com/a', r: '', i: 'abcdefgh12', e: 120_000, d: 100 },
  { s: 'site1', k: 'vt', u: 'https://example.com/', i: 'abcdefgh12', m: { lcp: 1200, cls: 0.05 }, a: 0 },
];

const text = (n: number) => 'x'.repeat(n);
/** Values at and around every bound of the ingest schema, of every JSON type, and a few beyond JSON. */
const VALUES: unknown[] = [
  '',
  'a',
  text(7),
  text(8),
  text(63),
  text(64),
  text(65),
  text(LIMITS.eventNameChars),
  text(LIMITS.eventNameChars + 1),
  text(LIMITS.propValueChars),
  text(LIMITS.propValueChars + 1),
  `https://example.com/${text(LIMITS.urlChars - 20)}`,
  `https://example.com/${text(LIMITS.urlChars - 19)}`,
  'https://example.com/',
  'http://[::1]:8080/x',
  'not a url',
  '//example.com/',
  'javascript:alert(1)',
  'with space',
  'ab_cd-EF12',
  'abc!defgh',
  'pv',
  'ev',
  'vt',
  'PV',
  -1,
  -0,
  0,
  0.5,
  1,
  99,
  100,
  101,
  599,
  600_000,
  600_001,
  100_000,
  100_001,
  86_400_000,
  86_400_001,
  864_000_000,
  864_000_001,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  [],
  ['a'],
  {},
  { lcp: 1 },
  { lcp: -1 },
  { zz: 1 },
  { plan: 'pro' },
  { plan: null },
  { '': 'x' },
  JSON.parse('{"__proto__": "x"}'),
  { constructor: 'x' },
  Object.fromEntries(Array.from({ length: LIMITS.propCount }, (_, i) => [`k${i}`, i])),
  Object.fromEntries(Array.from({ length: LIMITS.propCount + 1 }, (_, i) => [`k${i}`, i])),
  { [text(LIMITS.propKeyChars + 1)]: 1 },
];
const FIELDS = ['s', 'k', 'u', 'r', 'i', 'n', 'p', 'e', 'd', 'v', 'w', 'h', 'm', 'a', 'zz', '__proto__'];

/** A base body with one to three fields set to a value from VALUES, or deleted. */
function mutant(random: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const body = structuredClone(pick(BASES));
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
    const field = pick(FIELDS);
    if (random() < 0.15) delete body[field];
    else if (field === '__proto__')
      Object.defineProperty(body, field, { value: pick(VALUES), enumerable: true, configurable: true });
    else if (field === 'm' && random() < 0.5)
      body.m = { [pick(['lcp', 'fcp', 'inp', 'ttfb', 'cls', 'x'])]: pick(VALUES) };
    else if (field === 'p' && random() < 0.5) body.p = { [pick(['plan', '', 'constructor'])]: pick(VALUES) };
    else body[field] = pick(VALUES);
  }
  return body;
}

describe('compileGuard', () => {
  const guard = compileGuard(IngestEventSchema);

  it('passes the valid bodies', () => {
    for (const body of BASES) expect(guard(body)).toBe(true);
    expect(compileGuard(CrawlHitSchema)({ s: 'site1', u: 'https://example.com/', ua: 'GPTBot/1.2' })).toBe(
      true,
    );
  });

  it('never passes what valibot refuses, and agrees with valibot on JSON bodies', () => {
    const random = seeded(7);
    let passed = 0;
    for (let i = 0; i < 20_000; i++) {
      const body = mutant(random);
      // as the gateway sees it: undefined dropped, NaN and Infinity turned to null
      const json = JSON.parse(JSON.stringify(body)) as unknown;
      for (const input of [body, json]) {
        if (!guard(input)) continue;
        passed++;
        // sound: valibot accepts it, and its output is the input itself
        const result = v.safeParse(IngestEventSchema, input);
        expect(result.success, JSON.stringify(input)).toBe(true);
        expect(result.output).toStrictEqual(input);
      }
      // exact on JSON: the schema itself refuses arrays where objects are due and Object's own keys
      expect(guard(json), JSON.stringify(json)).toBe(v.safeParse(IngestEventSchema, json).success);
    }
    expect(passed).toBeGreaterThan(3000);
  });

  it('refuses the rules one by one', () => {
    const body = BASES[1] as Record<string, unknown>;
    expect(guard({ ...body, zz: 1 })).toBe(false);
    expect(guard({ ...body, u: 'not a url' })).toBe(false);
    expect(guard({ ...body, r: 'nope' })).toBe(false);
    expect(guard({ ...body, i: 'abc!defgh' })).toBe(false);
    expect(guard({ ...body, w: 1.5 })).toBe(false);
    expect(guard({ ...body, p: { constructor: 'x' } })).toBe(false);
    expect(guard({ ...body, m: { lcp: 1, zz: 2 } })).toBe(false);
    expect(
      guard(JSON.parse(`{"__proto__": 1, "s": "site1", "k": "pv", "u": "https://a.b/", "i": "abcdefgh"}`)),
    ).toBe(false);
    expect(guard(null)).toBe(false);
    expect(guard([])).toBe(false);
  });

  it('throws for what it cannot check exactly, and parseInput then asks valibot alone', () => {
    const transformed = v.object({
      a: v.pipe(
        v.string(),
        v.transform((s) => s.length),
      ),
    });
    expect(() => compileGuard(v.strictObject({ a: v.pipe(v.string(), v.trim()) }))).toThrow(
      UnsupportedSchemaError,
    );
    expect(() => compileGuard(v.strictObject({ a: v.optional(v.string(), 'x') }))).toThrow(
      UnsupportedSchemaError,
    );
    expect(() => compileGuard(v.strictObject({ a: v.pipe(v.string(), v.regex(/a/g)) }))).toThrow(
      UnsupportedSchemaError,
    );
    expect(() => compileGuard(v.strictObject({ toString: v.string() }))).toThrow(UnsupportedSchemaError);
    expect(() => compileGuard(transformed)).toThrow(UnsupportedSchemaError);
    expect(parseInput(transformed, { a: 'four', b: 1 })).toEqual({ a: 4 });
    const withDefault = v.strictObject({ a: v.optional(v.string(), 'x') });
    expect(parseInput(withDefault, {})).toEqual({ a: 'x' });
  });

  it('keeps key names out of the generated source', () => {
    const odd = v.strictObject({ 'a"); throw 1; ("': v.string(), "b'\n": v.optional(v.number()) });
    const g = compileGuard(odd);
    expect(g({ 'a"); throw 1; ("': 'x' })).toBe(true);
    expect(g({ 'a"); throw 1; ("': 'x', "b'\n": 'y' })).toBe(false);
    expect(g({})).toBe(false);
  });
});
