import { IngestEventSchema } from '@footfall/schema';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { parseInput } from './validate.ts';

const base = { s: 'site1', k: 'pv', u: 'https://example.com/', i: 'abcdefgh12' };
const errorOf = (input: unknown): AppError => {
  try {
    parseInput(IngestEventSchema, input);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
};

describe('parseInput', () => {
  it('returns the parsed value for valid input', () => {
    expect(parseInput(IngestEventSchema, base)).toEqual(base);
  });
  it('names an unknown field', () => {
    const e = errorOf({ ...base, zz: 1 });
    expect(e.status).toBe(400);
    expect(e.field).toBe('zz');
    expect(e.message).toBe('unknown field zz');
  });
  it('names a missing required field', () => {
    const { s: _s, ...rest } = base;
    const e = errorOf(rest);
    expect(e.field).toBe('s');
    expect(e.message).toBe('s is required');
  });
  it('names a field of the wrong type, nested too', () => {
    expect(errorOf({ ...base, e: 'long' }).field).toBe('e');
    expect(errorOf({ ...base, m: { lcp: 'x' } }).field).toBe('m.lcp');
  });
});
