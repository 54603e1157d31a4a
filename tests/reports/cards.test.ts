import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';
import { walEvent } from '../api-docs/documented-app.ts';

/**
 * Share cards: `GET …/card` answers a valid 1200 × 630 PNG drawn in worker threads; the event loop
 * keeps answering while twenty are drawn; bad parameters are 400s naming the field.
 */
let h: AccountsApp;
let owner: Agent;
let site: string;

/** Width and height from a PNG's IHDR, after checking its signature. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes);
  expect(b.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  site = (
    (await (
      await h.call('POST', '/api/v1/sites', { body: { domain: 'cards.example' }, agent: owner })
    ).json()) as {
      site: { id: string };
    }
  ).site.id;
  const now = h.clock.now();
  const records = Array.from({ length: 30 }, (_, i) =>
    walEvent(site, now - (i % 6) * 86_400_000 - 3_600_000, { visitor: `v${i}`, path: '/' }),
  );
  await h.deps.analytics.engine.applyBatch({
    records: records.map((record, i) => ({ stream: 'cards', seq: BigInt(i + 1), record })),
  });
}, 60_000);
afterAll(() => h.cleanup());

describe('share cards', () => {
  it('answers a 1200 × 630 PNG for each period and theme', async () => {
    for (const q of ['', '?period=24h&theme=dark', '?kind=pageviews&period=30d&accent=%23e11d48']) {
      const res = await h.call('GET', `/api/v1/sites/${site}/card${q}`, { agent: owner });
      expect(res.status, q).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(pngSize(new Uint8Array(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    }
  }, 60_000);

  it('refuses unknown kinds, periods, themes and colours, naming the field', async () => {
    for (const [q, field] of [
      ['?kind=revenue', 'kind'],
      ['?period=1y', 'period'],
      ['?theme=blue', 'theme'],
      ['?accent=red', 'accent'],
      ['?size=2', 'size'],
    ]) {
      const res = await h.call('GET', `/api/v1/sites/${site}/card${q}`, { agent: owner });
      expect(res.status, q).toBe(400);
      expect(await res.json()).toMatchObject({ field });
    }
  });

  it('draws twenty cards off the event loop: it stays responsive meanwhile', async () => {
    await h.deps.cards!.draw({
      domain: 'warm.up',
      value: '1',
      label: 'visitor',
      detail: '',
      series: [],
      theme: 'light',
      accent: '#000000',
      width: 1200,
      height: 630,
    });
    const before = performance.eventLoopUtilization();
    const cards = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.deps.cards!.draw({
          domain: 'cards.example',
          value: String(1000 + i),
          label: 'visitors',
          detail: 'in the last 7 days',
          series: [1, 4, 2, 8, 5, 7, i],
          theme: i % 2 ? 'dark' : 'light',
          accent: '#4338ca',
          width: 1200,
          height: 630,
        }),
      ),
    );
    const used = performance.eventLoopUtilization(before);
    for (const png of cards) expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
    // drawing one card takes 100-400 ms of CPU: on the event loop, the loop would be busy all
    // along (utilization near 1); off it, the loop mostly waits for the workers
    expect(used.utilization).toBeLessThan(0.5);
  }, 120_000);
});
