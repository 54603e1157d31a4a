import { getSite } from '@footfall/control';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMilestones } from '../../apps/query/src/milestones/check.ts';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';
import { walEvent } from '../api-docs/documented-app.ts';

/**
 * Milestones through the API: the daily check stores them from loaded visits and ledger payments;
 * people read them and close their moments each for themselves; owners choose kinds and make one
 * public at /m/{token}, whose page carries its card as the preview image and hides money unless
 * asked; a revoked link and a module switched off answer 404.
 */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;

const DAY = 86_400_000;
const json = async <T>(res: Response) => (await res.json()) as T;

interface MilestoneJson {
  kind: string;
  step: string;
  value: number;
  headline: string;
  title: string;
  seen: boolean | null;
  shared: boolean;
  share?: { url: string; show_amount: boolean } | null;
}
const list = async (agent: Agent) =>
  json<{ kinds: string[]; milestones: MilestoneJson[] }>(
    await h.call('GET', `/api/v1/sites/${site}/milestones`, { agent }),
  );

function pngSize(bytes: ArrayBuffer): { width: number; height: number } {
  const b = Buffer.from(bytes);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  const made = await h.call('POST', '/api/v1/sites', {
    body: { domain: 'milestones.example', currency: 'EUR' },
    agent: owner,
  });
  site = (await json<{ site: { id: string } }>(made)).site.id;
  viewer = await h.addViewer(owner);
  // 260 visitors yesterday (UTC, the site's zone)
  const yesterday = h.clock.now() - DAY;
  const records = Array.from({ length: 260 }, (_, i) =>
    walEvent(site, yesterday + i * 1000, { visitor: `v${i}`, path: '/' }),
  );
  await h.deps.analytics.engine.applyBatch({
    records: records.map((record, i) => ({ stream: 'ms', seq: BigInt(i + 1), record })),
  });
  // a first sale of €1,234.50 yesterday, through a custom connection's ledger
  const connection = await json<{ id: string }>(
    await h.call('POST', `/api/v1/sites/${site}/payments/connections`, {
      body: { provider: 'custom' },
      agent: owner,
    }),
  );
  h.control.raw
    .prepare(
      `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind, test, inbox_seq)
       VALUES (?, 'p1', ?, ?, 123450, 0, 'EUR', 'one_time', 0, 1)`,
    )
    .run(connection.id, site, yesterday);
  const found = await checkMilestones(h.deps, getSite(h.control, site)!);
  expect(found.map((m) => `${m.kind}:${m.step}`).sort()).toEqual([
    'first_sale:1',
    'pageviews:250',
    'revenue:1000',
    'visitors:250',
  ]);
}, 60_000);
afterAll(() => h.cleanup());

describe('milestones', () => {
  it('are listed newest first with their words; owners see links, viewers only whether one exists', async () => {
    const mine = await list(owner);
    expect(mine.kinds).toHaveLength(7);
    expect(mine.milestones.find((m) => m.kind === 'visitors')).toMatchObject({
      step: '250',
      value: 260,
      headline: '250 visitors',
      title: 'milestones.example reached 250 visitors',
      seen: false,
      shared: false,
      share: null,
    });
    expect(mine.milestones.find((m) => m.kind === 'revenue')?.headline).toBe('€1,000 in revenue');
    const theirs = await list(viewer);
    expect(theirs.milestones[0]).not.toHaveProperty('share');
    const bad = await h.call('PUT', `/api/v1/sites/${site}/milestones`, {
      body: { kinds: ['visitors', 'fame'] },
      agent: owner,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_body' });
    const forbidden = await h.call('PUT', `/api/v1/sites/${site}/milestones`, {
      body: { kinds: [] },
      agent: viewer,
    });
    expect(forbidden.status).toBe(403);
  });

  it('closes a moment for the person who closed it only', async () => {
    const seen = await h.call('POST', `/api/v1/sites/${site}/milestones/seen`, {
      body: { kind: 'visitors', step: '250' },
      agent: viewer,
    });
    expect(seen.status).toBe(204);
    expect((await list(viewer)).milestones.find((m) => m.kind === 'visitors')?.seen).toBe(true);
    expect((await list(owner)).milestones.find((m) => m.kind === 'visitors')?.seen).toBe(false);
    const unknown = await h.call('POST', `/api/v1/sites/${site}/milestones/seen`, {
      body: { kind: 'visitors', step: '1000000' },
      agent: viewer,
    });
    expect(unknown.status).toBe(404);
  });

  it('draws a 1200 × 630 card, refusing bad parameters by name', async () => {
    const res = await h.call(
      'GET',
      `/api/v1/sites/${site}/milestones/revenue/1000/card?theme=dark&amount=show`,
      {
        agent: viewer,
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(pngSize(await res.arrayBuffer())).toEqual({ width: 1200, height: 630 });
    for (const [q, field] of [
      ['?amount=maybe', 'amount'],
      ['?accent=blue', 'accent'],
      ['?size=2', 'size'],
    ]) {
      const bad = await h.call('GET', `/api/v1/sites/${site}/milestones/revenue/1000/card${q}`, {
        agent: viewer,
      });
      expect(bad.status, q).toBe(400);
      expect(await bad.json()).toMatchObject({ field });
    }
    const none = await h.call('GET', `/api/v1/sites/${site}/milestones/visitors/5000/card`, {
      agent: viewer,
    });
    expect(none.status).toBe(404);
  }, 60_000);

  it('is shared at /m/{token} with its card as the preview, money hidden unless asked, and revoked', async () => {
    const made = await h.call('POST', `/api/v1/sites/${site}/milestones/revenue/1000/share`, {
      body: {},
      agent: owner,
    });
    expect(made.status).toBe(201);
    const { share } = await json<{ share: { url: string; show_amount: boolean } }>(made);
    expect(share.show_amount).toBe(false);
    const path = new URL(share.url).pathname;
    expect(path).toMatch(/^\/m\/[\w-]{24}$/);
    const html = { headers: { accept: 'text/html' } };
    const page = await h.call('GET', path, html);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain(`<meta property="og:image" content="${share.url}/card.png">`);
    expect(text).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(text).toContain('reached a revenue milestone');
    expect(text).not.toContain('€');
    const card = await h.call('GET', `${path}/card.png`);
    expect(card.status).toBe(200);
    expect(pngSize(await card.arrayBuffer())).toEqual({ width: 1200, height: 630 });
    // showing the amount keeps the link
    const shown = await h.call('POST', `/api/v1/sites/${site}/milestones/revenue/1000/share`, {
      body: { show_amount: true },
      agent: owner,
    });
    expect(shown.status).toBe(200);
    expect((await json<{ share: { url: string } }>(shown)).share.url).toBe(share.url);
    expect(await (await h.call('GET', path, html)).text()).toContain('made €1,000 in revenue');
    expect((await list(viewer)).milestones.find((m) => m.kind === 'revenue')?.shared).toBe(true);
    expect(
      (
        await h.call('POST', `/api/v1/sites/${site}/milestones/revenue/1000/share`, {
          body: {},
          agent: viewer,
        })
      ).status,
    ).toBe(403);
    const revoked = await h.call('DELETE', `/api/v1/sites/${site}/milestones/revenue/1000/share`, {
      agent: owner,
    });
    expect(revoked.status).toBe(204);
    const gone = await h.call('GET', path, html);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('This milestone is not shared');
    expect((await h.call('GET', path)).status).toBe(404);
    expect((await h.call('GET', `${path}/card.png`)).status).toBe(404);
    expect(
      (await h.call('DELETE', `/api/v1/sites/${site}/milestones/revenue/1000/share`, { agent: owner }))
        .status,
    ).toBe(404);
  }, 60_000);

  it('hides kinds switched off, and answers 404 everywhere with the module off', async () => {
    const put = await h.call('PUT', `/api/v1/sites/${site}/milestones`, {
      body: { kinds: ['visitors', 'pageviews'] },
      agent: owner,
    });
    expect(put.status).toBe(200);
    expect((await json<{ milestones: MilestoneJson[] }>(put)).milestones.map((m) => m.kind).sort()).toEqual([
      'pageviews',
      'visitors',
    ]);
    const made = await h.call('POST', `/api/v1/sites/${site}/milestones/visitors/250/share`, {
      body: {},
      agent: owner,
    });
    const path = new URL((await json<{ share: { url: string } }>(made)).share.url).pathname;
    await h.call('PATCH', `/api/v1/sites/${site}`, {
      body: { modules: { milestones: false } },
      agent: owner,
    });
    for (const [method, route] of [
      ['GET', `/api/v1/sites/${site}/milestones`],
      ['PUT', `/api/v1/sites/${site}/milestones`],
      ['POST', `/api/v1/sites/${site}/milestones/seen`],
      ['GET', `/api/v1/sites/${site}/milestones/visitors/250/card`],
      ['POST', `/api/v1/sites/${site}/milestones/visitors/250/share`],
      ['DELETE', `/api/v1/sites/${site}/milestones/visitors/250/share`],
      ['GET', path],
      ['GET', `${path}/card.png`],
    ] as const) {
      const body =
        method === 'PUT' ? { kinds: [] } : method === 'POST' ? { kind: 'visitors', step: '250' } : undefined;
      const res = await h.call(method, route, { body, agent: owner });
      expect(res.status, `${method} ${route}`).toBe(404);
    }
    await h.call('PATCH', `/api/v1/sites/${site}`, { body: { modules: { milestones: true } }, agent: owner });
    expect((await h.call('GET', path, { headers: { accept: 'text/html' } })).status).toBe(200);
  });
});
