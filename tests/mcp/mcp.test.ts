import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, createOwner } from '../dashboard/harness.ts';
import { FOOTFALL_BIN, startFootfall } from '../support/footfall.ts';
import { postCustomEvent } from '../support/payments.ts';

/**
 * The read-only MCP server through the real `footfall start`, with the SDK's own client over
 * Streamable HTTP (`/mcp`) and over stdio (`footfall mcp`): every tool's numbers equal the API's
 * for the same parameters, a key limited to one site sees only that site, a bad key is refused.
 */
/** A JSON answer, compared field by field with the API's. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read as loosely as JSON is
type Answer = Record<string, any>;

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let keyAll: string;
let keyShop: string;
let shop: string;
let blog: string;
const clients: Client[] = [];

/** The report API's answer for a site with the caller's key, for comparison. */
async function api<T>(key: string, path: string): Promise<T> {
  const res = await fetch(`${footfall.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'footfall-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${footfall.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    result,
    data: result.structuredContent as Answer,
    summary: (result.content[0] as { text: string }).text,
  };
}

beforeAll(async () => {
  footfall = await startFootfall({ FOOTFALL_RATES_URL: 'http://127.0.0.1:9/' });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  shop = (
    await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', {
      domain: 'shop.localhost',
      currency: 'EUR',
    })
  ).site.id;
  blog = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'blog.localhost' }))
    .site.id;
  keyAll = (await owner.call<{ key: string }>('POST', '/api/v1/api-keys', { name: 'assistant' })).key;
  await owner.call('POST', `/api/v1/sites/${shop}/goals`, {
    name: 'Saw pricing',
    kind: 'page',
    match: '/pricing',
  });
  await owner.call('POST', `/api/v1/sites/${shop}/funnels`, {
    name: 'Buy',
    steps: [
      { kind: 'page', match: '/pricing' },
      { kind: 'page', match: '/checkout', name: 'Checkout' },
    ],
  });
  const limited = await owner.call<{ key: string; api_key: { sites: string[] | null } }>(
    'POST',
    '/api/v1/api-keys',
    { name: 'shop only', sites: [shop] },
  );
  expect(limited.api_key.sites).toEqual([shop]);
  keyShop = limited.key;
  const visits: [string, string, string, string][] = [
    [shop, 'buyer-0001', 'https://www.google.com/', '/pricing'],
    [shop, 'buyer-0002', 'https://news.ycombinator.com/', '/'],
    [shop, 'reader-0003', 'https://news.ycombinator.com/', '/docs'],
    [blog, 'reader-0004', '', '/post'],
  ];
  const send = async (body: Record<string, unknown>) => {
    const res = await fetch(`${footfall.url}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBe(202);
  };
  for (const [site, visitor, referrer, path] of visits) {
    // the shop's docs are on a subdomain of it
    const host =
      site === blog ? 'blog.localhost' : path === '/docs' ? 'docs.shop.localhost' : 'shop.localhost';
    await send({
      s: site,
      k: 'pv',
      u: `http://${host}${path}`,
      v: visitor,
      ...(referrer ? { r: referrer } : {}),
    });
    // the buyer read the pricing page for 12 s, 60 % of the way down
    if (visitor === 'buyer-0001')
      await send({ s: site, k: 'en', u: `http://${host}${path}`, v: visitor, e: 12_000, d: 60 });
  }
  // a robot read, as the shop's server reports it
  const { site: withKey } = await owner.call<{ site: { proxy_key: string } }>('GET', `/api/v1/sites/${shop}`);
  const hit = await fetch(`${footfall.url}/api/crawl`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': withKey.proxy_key },
    body: JSON.stringify({
      s: shop,
      u: 'http://shop.localhost/pricing',
      ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    }),
  });
  expect(hit.status).toBe(202);
  // a sale through the custom webhook, credited to buyer-0001's search visit
  const connection = await owner.call<{ webhook_url: string; signing_secret: string }>(
    'POST',
    `/api/v1/sites/${shop}/payments/connections`,
    { provider: 'custom' },
  );
  const paid = await postCustomEvent(connection.webhook_url, connection.signing_secret, {
    id: 'evt-1',
    type: 'payment',
    at: Date.now() + 2000,
    payment: { id: 'pay-1', amount: 4900, currency: 'EUR', visitor: 'buyer-0001' },
  });
  expect(paid.status).toBe(200);
  const report = () => api<{ kpis: { visitors: number } }>(keyAll, `/api/v1/sites/${shop}/report`);
  for (let i = 0; i < 100 && (await report()).kpis.visitors < 3; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect((await report()).kpis.visitors).toBe(3);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await footfall?.stop();
});

describe('the MCP server over Streamable HTTP', () => {
  it('lists its tools, each described with an input schema, and its resources', async () => {
    const client = await httpClient(keyAll);
    expect(client.getServerVersion()?.name).toBe('footfall');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_ai_robots',
      'get_ai_search',
      'get_all_sites_report',
      'get_breakdown',
      'get_card',
      'get_funnels',
      'get_goals',
      'get_live',
      'get_milestones',
      'get_moments',
      'get_report',
      'get_revenue',
      'get_timeseries',
      'list_sites',
    ]);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['footfall://docs/dimensions', 'footfall://sites']);
    const doc = await client.readResource({ uri: 'footfall://docs/dimensions' });
    expect((doc.contents[0] as { text: string }).text).toContain('## Filters');
  });

  it('answers the same numbers as the API for the same parameters', async () => {
    const client = await httpClient(keyAll);
    const sites = await call(client, 'list_sites');
    expect(sites.data.sites.map((s: { domain: string }) => s.domain).sort()).toEqual([
      'blog.localhost',
      'shop.localhost',
    ]);

    const report = await call(client, 'get_report', { site: shop, breakdowns: ['referrer', 'pages'] });
    const { from, to } = report.data.period;
    const base = `/api/v1/sites/${shop}`;
    const fromApi = await api<Answer>(keyAll, `${base}/report?from=${from}&to=${to}`);
    expect(report.data.kpis).toEqual(fromApi.kpis);
    expect(report.data.breakdowns.referrer).toEqual(fromApi.breakdowns.referrer);
    expect(report.data.breakdowns.pages).toEqual(fromApi.breakdowns.pages);
    expect(report.data.breakdowns.pages).toContainEqual(
      expect.objectContaining({ value: '/pricing', scroll_depth: 60, time_on_page: 12 }),
    );
    expect(report.summary).toMatch(/^shop\.localhost, .*: 3 visitors, 3 visits, 3 pageviews/);
    expect(JSON.parse((report.result.content[1] as { text: string }).text)).toEqual(report.data);

    const filtered = await call(client, 'get_report', {
      site: shop,
      from,
      to,
      filters: ['referrer:news.ycombinator.com'],
      compare: 'previous',
    });
    const filteredApi = await api<Answer>(
      keyAll,
      `${base}/report?from=${from}&to=${to}&f=referrer:news.ycombinator.com&compare=previous`,
    );
    expect(filtered.data.kpis).toEqual(filteredApi.kpis);
    expect(filtered.data.kpis.visitors).toBe(2);
    expect(filtered.data.compare_kpis).toEqual(filteredApi.compare_kpis);

    const breakdown = await call(client, 'get_breakdown', { site: shop, from, to, dimension: 'entry_page' });
    const breakdownApi = await api<Answer>(
      keyAll,
      `${base}/report/breakdown?dim=entry_page&from=${from}&to=${to}&limit=100`,
    );
    expect(breakdown.data.rows).toEqual(breakdownApi.rows);
    expect(breakdown.data.rows).toHaveLength(3);

    const hosts = await call(client, 'get_breakdown', { site: shop, from, to, dimension: 'hostname' });
    const hostsApi = await api<Answer>(
      keyAll,
      `${base}/report/breakdown?dim=hostname&from=${from}&to=${to}&limit=100`,
    );
    expect(hosts.data.rows).toEqual(hostsApi.rows);
    expect(hosts.data.rows.map((r: { value: string }) => r.value)).toEqual([
      'shop.localhost',
      'docs.shop.localhost',
    ]);
    const docs = await call(client, 'get_report', {
      site: shop,
      from,
      to,
      filters: ['hostname:docs.shop.localhost'],
    });
    expect(docs.data.kpis).toEqual(
      (await api<Answer>(keyAll, `${base}/report?from=${from}&to=${to}&f=hostname:docs.shop.localhost`)).kpis,
    );
    expect(docs.data.kpis).toMatchObject({ visitors: 1, pageviews: 1 });

    const series = await call(client, 'get_timeseries', { site: shop, from, to, bucket: 'day' });
    const seriesApi = await api<Answer>(keyAll, `${base}/report?from=${from}&to=${to}&bucket=day`);
    expect(series.data.points).toEqual(
      seriesApi.chart.map(({ start: _s, ...p }: Record<string, unknown>) => p),
    );

    const live = await call(client, 'get_live', { site: shop });
    const now = await api<Answer>(keyAll, `${base}/now?limit=200`);
    expect(live.data).toMatchObject({
      visitors_5m: now.visitors_5m,
      visitors_30m: now.visitors_30m,
      pageviews_30m: now.pageviews_30m,
    });
    expect(live.data.visitors_5m).toBe(3);
    // no visitor ids leave through the tool
    expect(JSON.stringify(live.result)).not.toMatch(/buyer-0001|reader-0003/);

    const robots = await call(client, 'get_ai_robots', { site: shop, from, to });
    const robotsApi = await api<Answer>(keyAll, `${base}/report/crawlers?from=${from}&to=${to}`);
    expect(robots.data.totals).toEqual(robotsApi.totals);
    expect(robots.data.totals.hits).toBe(1);
    expect(robots.data.robots).toEqual([{ robot: 'GPTBot', kind: 'ai_training', hits: 1 }]);
    expect(robots.summary).toContain('most by GPTBot');

    const goals = await call(client, 'get_goals', { site: shop, from, to, goal: 'Saw pricing' });
    const goalsApi = await api<Answer>(keyAll, `${base}/report?from=${from}&to=${to}`);
    expect(goals.data.goals).toEqual(goalsApi.goals);
    expect(goals.data.goals).toEqual([expect.objectContaining({ name: 'Saw pricing', visitors: 1 })]);
    expect(goals.data.properties).toEqual([]);
    expect(goals.summary).toContain('Saw pricing 1 visitors');

    const ai = await call(client, 'get_ai_search', { site: shop, from, to });
    const aiApi = await api<Answer>(keyAll, `${base}/report/ai-search?from=${from}&to=${to}`);
    expect(ai.data.visitors).toBe(aiApi.visitors);
    expect(ai.data.reads).toBe(aiApi.reads);
    expect(ai.data.reads).toBe(1);
    expect(ai.data.pages).toEqual(aiApi.pages);
    expect(ai.summary).toContain('AI robots read pages 1 times');

    const moments = await call(client, 'get_moments', { site: shop, from, to });
    const momentsApi = await api<Answer>(keyAll, `${base}/moments?from=${from}&to=${to}`);
    expect(moments.data.moments).toEqual(momentsApi.moments);
    expect(moments.data.moments[0]).toMatchObject({ kind: 'peak', count: 3 });
    expect(moments.summary).toContain('busiest');
    const funnels = await call(client, 'get_funnels', { site: shop, from, to });
    const funnelsApi = await api<{ funnels: { steps: { visitors: number }[] }[] }>(
      keyAll,
      `${base}/report/funnels?from=${from}&to=${to}`,
    );
    expect(funnelsApi.funnels[0]?.steps.map((step) => step.visitors)).toEqual([1, 0]);
    expect(funnels.data.funnels).toEqual([
      {
        name: 'Buy',
        within_days: null,
        steps: [
          { name: '/pricing', kind: 'page', match: '/pricing', visitors: 1, dropped: 0, rate: 1 },
          { name: 'Checkout', kind: 'page', match: '/checkout', visitors: 0, dropped: 1, rate: 0 },
        ],
      },
    ]);
    expect(funnels.summary).toContain('Buy 1 → 0 visitors (0% through)');

    const card = await call(client, 'get_card', {
      site: shop,
      kind: 'pageviews',
      window: '30d',
      theme: 'dark',
    });
    expect(card.summary).toBe(
      'The card of shop.localhost: pageviews of the last 30 days, dark, 1200 × 630 PNG.',
    );
    const image = card.result.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);

    const milestones = await call(client, 'get_milestones', { site: shop });
    expect(milestones.data.milestones).toEqual([]);
    expect(milestones.summary).toContain('No milestone reached yet');

    const revenue = await call(client, 'get_revenue', { site: shop, from, to });
    expect(revenue.data.kpis.revenue).toBe(fromApi.kpis.revenue);
    expect(revenue.data.kpis.revenue).toBe(4900);
    expect(revenue.data.by.referrer).toEqual([
      { value: 'google.com', revenue: 4900, customers: 1, visitors: 1 },
    ]);
    expect(revenue.summary).toContain('revenue 49.00 EUR');
    const none = await call(client, 'get_revenue', { site: blog });
    expect(none.data.revenue).toBeNull();
    expect(none.summary).toContain('no payment connection');
  });

  it('applies a saved segment by its name, and names the segments there are for an unknown one', async () => {
    await owner.call('POST', `/api/v1/sites/${shop}/segments`, {
      name: 'From Hacker News',
      filters: ['referrer:news.ycombinator.com'],
      shared: true,
    });
    const client = await httpClient(keyAll);
    const report = await call(client, 'get_report', { site: shop, segment: 'from hacker news' });
    const { from, to } = report.data.period;
    const fromApi = await api<Answer>(
      keyAll,
      `/api/v1/sites/${shop}/report?from=${from}&to=${to}&f=${encodeURIComponent('referrer:news.ycombinator.com')}`,
    );
    expect(report.data.kpis).toEqual(fromApi.kpis);
    expect(report.data.kpis.visits).toBeGreaterThan(0);
    const unknown = await call(client, 'get_report', { site: shop, segment: 'Paid' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.summary).toContain(
      'no segment named "Paid" on this site; its segments are "From Hacker News"',
    );
  });

  it('reads every site at once with the numbers of the API, and only the sites a key may read', async () => {
    const client = await httpClient(keyAll);
    const all = await call(client, 'get_all_sites_report', {
      period: '7d',
      breakdowns: ['channel', 'pages'],
    });
    const fromApi = await api<Answer & { sites: { id: string }[] }>(keyAll, '/api/v1/report?period=7d');
    expect(all.data.kpis).toEqual(fromApi.kpis);
    expect(all.data.sites.map((s: { id: string }) => s.id).sort()).toEqual([shop, blog].sort());
    expect(all.data.breakdowns.channel).toEqual(fromApi.breakdowns.channel);
    expect(all.summary).toMatch(/^2 sites, .*: \d+ visitors, \d+ visits, \d+ pageviews\. By site: /);
    const shopOnly = await call(await httpClient(keyShop), 'get_all_sites_report', {});
    expect(shopOnly.data.sites.map((s: { id: string }) => s.id)).toEqual([shop]);
    const refused = await call(await httpClient(keyShop), 'get_all_sites_report', { sites: [shop, blog] });
    expect(refused.result.isError).toBe(true);
    expect((refused.result.content[0] as { text: string }).text).toContain(`you may not read site ${blog}`);
  });

  it('shows a key limited to one site that site only, and says so for the other', async () => {
    const client = await httpClient(keyShop);
    const sites = await call(client, 'list_sites');
    expect(sites.data.sites.map((s: { id: string }) => s.id)).toEqual([shop]);
    const other = await call(client, 'get_report', { site: blog });
    expect(other.result.isError).toBe(true);
    expect((other.result.content[0] as { text: string }).text).toContain('404');
    const own = await call(client, 'get_report', { site: shop });
    expect(own.data.kpis.visitors).toBe(3);
    const listed = await client.readResource({ uri: 'footfall://sites' });
    expect(JSON.parse((listed.contents[0] as { text: string }).text).sites).toHaveLength(1);
  });

  it('refuses a bad key, a session cookie, and what is not JSON-RPC', async () => {
    const bad = new Client({ name: 'footfall-test', version: '1.0.0' });
    await expect(
      bad.connect(
        new StreamableHTTPClientTransport(new URL(`${footfall.url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer ffk_not_a_real_key' } },
        }),
      ),
    ).rejects.toThrow(/the API key is not valid/);
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${footfall.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    });
    expect((await post({}, initialize)).status).toBe(401);
    // the dashboard's session cannot be used to reach it
    const cookie = await fetch(`${footfall.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: owner.cookie },
      body: initialize,
    });
    expect(cookie.status).toBe(403);
    // a plain JSON client (no text/event-stream in Accept) is answered in JSON
    const plain = await post({ authorization: `Bearer ${keyAll}`, accept: 'application/json' }, initialize);
    expect(plain.status).toBe(200);
    expect(
      ((await plain.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
    ).toBe('footfall');
    const junk = await post({ authorization: `Bearer ${keyAll}` }, '{"zz":1}');
    expect(junk.status).toBe(400);
    const stream = await fetch(`${footfall.url}/mcp`, { headers: { authorization: `Bearer ${keyAll}` } });
    expect(stream.status).toBe(405);
  });
});

describe('the MCP server over stdio (footfall mcp)', () => {
  it('answers the same as the API through the bridge, with the same key limits', async () => {
    const client = new Client({ name: 'footfall-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [FOOTFALL_BIN, 'mcp', '--url', footfall.url],
        env: { PATH: process.env.PATH ?? '', FOOTFALL_MCP_KEY: keyShop },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    const sites = await call(client, 'list_sites');
    expect(sites.data.sites.map((s: { id: string }) => s.id)).toEqual([shop]);
    const report = await call(client, 'get_report', { site: shop, breakdowns: ['channel'] });
    const { from, to } = report.data.period;
    const fromApi = await api<Answer>(keyShop, `/api/v1/sites/${shop}/report?from=${from}&to=${to}`);
    expect(report.data.kpis).toEqual(fromApi.kpis);
    expect(report.data.breakdowns.channel).toEqual(fromApi.breakdowns.channel);
    const other = await call(client, 'get_report', { site: blog });
    expect(other.result.isError).toBe(true);
  });

  it('says what is missing when started without an address or a key', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [FOOTFALL_BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--url is required');
    expect(run.stdout).toBe('');
  });
});
