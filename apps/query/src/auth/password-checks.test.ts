import { describe, expect, it } from 'vitest';
import { PasswordChecks } from './password-checks.ts';

const deferred = () => {
  let resolve!: (v: boolean) => void;
  const promise = new Promise<boolean>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('password checks', () => {
  it('run at most two at once; a third waits for a free slot', async () => {
    const checks = new PasswordChecks({ now: () => 0, maxWaitMs: 60_000 });
    const a = deferred();
    const b = deferred();
    let thirdStarted = false;
    const first = checks.password({ address: 'x' }, () => a.promise);
    const second = checks.password({ address: 'x' }, () => b.promise);
    const third = checks.password({ address: 'x' }, async () => {
      thirdStarted = true;
      return true;
    });
    await new Promise((r) => setImmediate(r));
    expect(thirdStarted).toBe(false);
    a.resolve(true);
    expect(await first).toBe(true);
    expect(await third).toBe(true);
    expect(thirdStarted).toBe(true);
    b.resolve(true);
    await second;
  });

  it('answers 503 "busy, try again" to a check that waited too long, and frees its place', async () => {
    const checks = new PasswordChecks({ now: () => 0, maxWaitMs: 20 });
    const hold = deferred();
    const running = [
      checks.password({ address: 'x' }, () => hold.promise),
      checks.password({ address: 'x' }, () => hold.promise),
    ];
    await expect(checks.password({ address: 'x' }, async () => true)).rejects.toMatchObject({
      code: 'busy',
      status: 503,
      message: 'busy, try again',
    });
    hold.resolve(true);
    await Promise.all(running);
    expect(await checks.password({ address: 'x' }, async () => true)).toBe(true);
  });

  it('limits failures per address and per person, until the window ends', async () => {
    let now = 0;
    const checks = new PasswordChecks({ now: () => now, perAddress: 3, perPerson: 2, windowMs: 1000 });
    const fail = async () => false;
    await checks.password({ address: 'a', person: 'p@x' }, fail);
    await checks.password({ address: 'b', person: 'p@x' }, fail);
    await expect(checks.password({ address: 'c', person: 'p@x' }, fail)).rejects.toMatchObject({
      code: 'rate_limited',
    });
    await checks.password({ address: 'a', person: 'q@x' }, fail);
    await checks.password({ address: 'a', person: 'r@x' }, fail);
    await expect(checks.password({ address: 'a', person: 's@x' }, fail)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfter: 1,
    });
    now = 1000;
    expect(await checks.password({ address: 'a', person: 'p@x' }, async () => true)).toBe(true);
  });

  it('counts attempts still running: of 60 sent at once for one person, 10 are checked and 50 refused', async () => {
    const checks = new PasswordChecks({ now: () => 0, maxWaitMs: 60_000 });
    let checked = 0;
    const answers = await Promise.allSettled(
      Array.from({ length: 60 }, () =>
        checks.password({ address: 'a', person: 'p@x' }, async () => {
          checked++;
          await new Promise((r) => setTimeout(r, 5));
          return false;
        }),
      ),
    );
    expect(checked).toBe(10);
    expect(answers.filter((a) => a.status === 'rejected' && a.reason.code === 'rate_limited')).toHaveLength(
      50,
    );
    // a right password once those failed is refused too, until the window ends
    await expect(checks.password({ address: 'b', person: 'p@x' }, async () => true)).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it('frees an attempt that ends without a verdict (busy) for the next one', async () => {
    const checks = new PasswordChecks({ now: () => 0, maxWaitMs: 10, maxConcurrent: 1, perPerson: 1 });
    const hold = deferred();
    const running = checks.password({ address: 'a', person: 'p@x' }, () => hold.promise);
    await expect(checks.password({ address: 'b', person: 'q@x' }, async () => true)).rejects.toMatchObject({
      code: 'busy',
    });
    hold.resolve(true);
    expect(await running).toBe(true);
    expect(await checks.password({ address: 'b', person: 'q@x' }, async () => true)).toBe(true);
  });

  it('does not count successful checks', async () => {
    const checks = new PasswordChecks({ now: () => 0, perAddress: 1 });
    for (let i = 0; i < 5; i++) expect(await checks.password({ address: 'a' }, async () => true)).toBe(true);
  });
});
