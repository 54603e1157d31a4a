import { createFootfallMcpServer, readAnswer } from '@footfall/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleApi, searchDays, syncSearchConsole } from '../../apps/query/src/search-console.ts';
import { type AccountsApp, type Agent, accountsApp } from '../accounts/harness.ts';
import { type FakeGoogle, SERVICE_ACCOUNT, startFakeGoogle } from '../support/google.ts';

/**
 * Google Search Console through the API, against a local server speaking Google's documented
 * shapes: the OAuth token endpoint (a JWT bearer assertion signed with the service account's key,
 * checked here with its public key) and the Search Analytics query. Owners connect a site; the
 * AI & search report then flags pages search engines send people to that no AI robot read.
 */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;
let google: FakeGoogle;
let keyFile: string;

const json = async <T>(res: Response) => (await res.json()) as T;
type Page = { path: string; read: number; sent: number; clicks: number | null; flag: string | null };
const aiSearch = async () =>
  json<{ pages: Page[]; search_console: { property: string; robots_reported: boolean } | null }>(
    await h.call('GET', `/api/v1/sites/${site}/report/ai-search?from=2026-02-01&to=2026-02-28`, {
      agent: owner,
    }),
  );

beforeAll(async () => {
  google = await startFakeGoogle('sc-domain:example.com');
  keyFile = google.keyFile;
  h = await accountsApp({ env: { FOOTFALL_UNSAFE_GOOGLE_API: google.url } });
  owner = await h.setup('owner@example.com');
  const made = await h.call('POST', '/api/v1/sites', { body: { domain: 'example.com' }, agent: owner });
  site = (await json<{ site: { id: string } }>(made)).site.id;
  viewer = await h.addViewer(owner);
  google.rows.push(
    { date: '2026-02-20', page: 'https://www.example.com/guide/', clicks: 4 },
    { date: '2026-02-21', page: 'https://example.com/guide', clicks: 3 },
    { date: '2026-02-21', page: 'https://example.com/docs', clicks: 9 },
    { date: '2026-02-22', page: 'https://example.com/read', clicks: 7 },
    { date: '2026-02-22', page: 'https://example.com/rare', clicks: 2 },
    { date: '2026-02-22', page: 'https://other.example.net/docs', clicks: 50 },
  );
}, 60_000);
afterAll(async () => {
  await h?.cleanup();
  await google?.close();
});

const connect = (body: Record<string, unknown>, agent = owner) =>
  h.call('PUT', `/api/v1/sites/${site}/search-console`, { body, agent });

describe('Search Console', () => {
  it('refuses a wrong property, key or account with a 400 naming the field, and stores nothing', async () => {
    const badProperty = await connect({ property: 'example.com', service_account_key: keyFile });
    expect(await badProperty.json()).toMatchObject({ code: 'invalid_body', field: 'property' });
    const notKey = await connect({
      property: 'sc-domain:example.com',
      service_account_key: '{"type":"user"}',
    });
    expect(await notKey.json()).toMatchObject({ code: 'invalid_body', field: 'service_account_key' });
    const otherAccount = JSON.stringify({
      ...JSON.parse(keyFile),
      client_email: 'someone@else.iam.gserviceaccount.com',
    });
    const rejected = await connect({ property: 'sc-domain:example.com', service_account_key: otherAccount });
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toMatchObject({
      code: 'provider_key_rejected',
      field: 'service_account_key',
    });
    const noAccess = await connect({ property: 'sc-domain:example.org', service_account_key: keyFile });
    expect(noAccess.status).toBe(400);
    const refused = await json<{ code: string; field: string; message: string }>(noAccess);
    expect(refused).toMatchObject({ code: 'provider_permission_missing', field: 'property' });
    expect(refused.message).toContain(SERVICE_ACCOUNT);
    expect(
      (await connect({ property: 'sc-domain:example.com', service_account_key: keyFile }, viewer)).status,
    ).toBe(403);
    const none = await h.call('GET', `/api/v1/sites/${site}/search-console`, { agent: owner });
    expect(await none.json()).toEqual({ connection: null });
    expect((await aiSearch()).search_console).toBeNull();
  });

  it('connects with a service account, pulls clicks per page and never shows the key', async () => {
    const res = await connect({ property: 'sc-domain:example.com', service_account_key: keyFile });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = await json<{ connection: Record<string, unknown>; pages: number }>(res);
    expect(answer.connection).toMatchObject({
      property: 'sc-domain:example.com',
      client_email: SERVICE_ACCOUNT,
      last_error: null,
    });
    // /guide/ on www. and /guide are one page; other hosts are left out
    expect(answer.pages).toBe(4);
    expect(google.queries.at(-1)?.body).toMatchObject({
      startDate: '2026-01-30',
      endDate: '2026-02-28',
      dimensions: ['date', 'page'],
    });
    const read = await h.call('GET', `/api/v1/sites/${site}/search-console`, { agent: owner });
    expect(JSON.stringify(await read.json())).not.toContain('PRIVATE KEY');
    expect((await h.call('GET', `/api/v1/sites/${site}/search-console`, { agent: viewer })).status).toBe(403);
  });

  it('flags pages with 5 clicks and no AI robot read as not read, once robots are reported', async () => {
    const before = await aiSearch();
    expect(before.search_console).toMatchObject({
      property: 'sc-domain:example.com',
      robots_reported: false,
    });
    expect(before.pages.every((p) => p.flag === null)).toBe(true);
    // GPTBot read /read in February: robots are reported now
    await h.deps.analytics.engine.applyBatch({
      records: [
        {
          stream: 'crawl',
          seq: 1n,
          record: {
            t: 'crawl',
            site,
            day: '2026-02-25',
            robot: 'GPTBot',
            robotKind: 'ai_training',
            path: '/read',
            status: 200,
          },
        },
      ],
    });
    const after = await aiSearch();
    expect(after.search_console?.robots_reported).toBe(true);
    const byPath = Object.fromEntries(
      after.pages.map((p) => [p.path, { clicks: p.clicks, read: p.read, flag: p.flag }]),
    );
    expect(byPath).toEqual({
      '/docs': { clicks: 9, read: 0, flag: 'not_read' },
      '/guide': { clicks: 7, read: 0, flag: 'not_read' },
      '/read': { clicks: 7, read: 1, flag: null },
    });

    // the MCP tool answers the same clicks and flags, and says so in words
    const server = createFootfallMcpServer(
      async (path, query) => readAnswer(await h.call('GET', `${path}?${query ?? ''}`, { agent: owner })),
      'test',
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    const result = await client.callTool({
      name: 'get_ai_search',
      arguments: { site, from: '2026-02-01', to: '2026-02-28' },
    });
    await client.close();
    const data = result.structuredContent as { pages: Page[]; search_console: unknown };
    expect(data.pages).toEqual(after.pages);
    expect(data.search_console).toEqual(after.search_console);
    const [summary] = result.content as { text: string }[];
    expect(summary?.text).toContain('2 pages with search clicks that no AI robot read (/docs, /guide)');
    expect(summary?.text).toContain('search clicks from Search Console (sc-domain:example.com)');
  });

  it('pulls again after 12 hours, keeps a failure for owners to see, and disconnects', async () => {
    google.rows.push({ date: '2026-02-28', page: 'https://example.com/rare', clicks: 10 });
    h.clock.advance(13 * 3_600_000);
    const deps = { control: h.control, api: googleApi(google.url), now: h.clock.now, logger: h.deps.logger };
    await syncSearchConsole(deps);
    expect((await aiSearch()).pages.find((p) => p.path === '/rare')).toMatchObject({
      clicks: 12,
      flag: 'not_read',
    });
    // the account loses access: the next pull fails and says why
    h.control.raw.prepare("UPDATE search_console SET property = 'sc-domain:example.org'").run();
    h.clock.advance(13 * 3_600_000);
    await syncSearchConsole(deps);
    const failing = await json<{ connection: { last_error: { message: string } | null } }>(
      await h.call('GET', `/api/v1/sites/${site}/search-console`, { agent: owner }),
    );
    expect(failing.connection.last_error?.message).toContain(SERVICE_ACCOUNT);
    expect((await h.call('DELETE', `/api/v1/sites/${site}/search-console`, { agent: owner })).status).toBe(
      204,
    );
    expect((await aiSearch()).search_console).toBeNull();
    expect((await h.call('DELETE', `/api/v1/sites/${site}/search-console`, { agent: owner })).status).toBe(
      404,
    );
  });
});

describe('the days a pull asks for', () => {
  it("are the 30 days before today in Pacific time, Search Console's days", () => {
    // 03:00 UTC on 2 March is still 1 March in California: 1 March has not finished
    expect(searchDays(Date.parse('2026-03-02T03:00:00Z'))).toEqual({ from: '2026-01-30', to: '2026-02-28' });
    expect(searchDays(Date.parse('2026-03-02T09:00:00Z'))).toEqual({ from: '2026-01-31', to: '2026-03-01' });
    // across the change to daylight saving time (8 March 2026 in California)
    expect(searchDays(Date.parse('2026-03-09T07:30:00Z'))).toEqual({ from: '2026-02-07', to: '2026-03-08' });
  });
});
