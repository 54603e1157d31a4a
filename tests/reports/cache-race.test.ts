import { createSite } from '@footfall/control';
import type { WalEvent } from '@footfall/schema';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../apps/query/src/engine/index.ts';
import { type AccountsApp, accountsApp } from '../accounts/harness.ts';

const TOKEN = 'cache-race-api-token-0123456789';
let env: AccountsApp | undefined;
afterEach(async () => env?.cleanup());

let seq = 0n;
const pageview = (site: string, at: number, id: string): BatchRecord => ({
  stream: 'race',
  seq: ++seq,
  record: {
    t: 'event',
    id,
    site,
    at,
    kind: 'pv',
    host: 'example.com',
    path: '/',
    visitor: `visitor-${id}`,
    idMode: 'cookie',
    channel: 'Direct',
    device: 'desktop',
  } satisfies WalEvent,
});

describe('the report cache and a batch that commits while a report is computed', () => {
  it('never keeps the older answer: the next request computes again', async () => {
    env = await accountsApp({ env: { FOOTFALL_API_TOKEN: TOKEN } });
    const { analytics } = env.deps;
    const site = await createSite(env.control, { domain: 'example.com' });
    const at = env.clock.now() - 60_000;
    const day = new Date(at).toISOString().slice(0, 10);
    const path = `/api/v1/sites/${site.id}/report?from=${day}&to=${day}`;
    const get = async () => {
      const res = await env!.call('GET', path, { bearer: TOKEN });
      expect(res.status).toBe(200);
      return ((await res.json()) as { kpis: { pageviews: number } }).kpis.pageviews;
    };
    // what the tailer does for each batch: commit it, then tell the cache
    const commit = async (records: BatchRecord[]) => {
      await analytics.engine.applyBatch({ records });
      analytics.cache.noteBatch(
        new Map(
          records.map(({ record }) => [
            record.site,
            { from: (record as { at: number }).at, to: (record as { at: number }).at },
          ]),
        ),
      );
    };
    await commit([pageview(site.id, at, 'first0001')]);

    // The report's query has read its snapshot (one pageview) but not yet answered, when a second
    // batch commits: hold the answer until then.
    const real = analytics.engine.report.bind(analytics.engine);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered!: () => void;
    const firstAnswer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    let computed = 0;
    analytics.engine.report = async (q) => {
      const n = ++computed;
      const answer = await real(q);
      if (n === 1) {
        answered();
        await held;
      }
      return answer;
    };
    const racing = get();
    await firstAnswer; // the query has read one pageview...
    await commit([pageview(site.id, at, 'second002')]); // ...when the second batch commits
    release();
    expect(await racing).toBe(1); // computed before the second batch: fine to answer once

    expect(await get()).toBe(2); // but never cached as if it were newer
    expect(computed).toBe(2);
    expect(await get()).toBe(2); // now from the cache
    expect(computed).toBe(2);
  });
});
