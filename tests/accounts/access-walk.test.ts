import { recordMilestone, shareMilestone, storeFavicon, unsubscribeToken } from '@footfall/control';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, ROUTE_ACCESS, SHARE_READS } from '../../apps/query/src/auth/access.ts';
import { type OidcProvider, startOidcProvider } from '../support/oidc.ts';
import {
  type AccountsApp,
  type Agent,
  accountsApp,
  type CallOptions,
  PASSWORD,
  SETUP_TOKEN,
} from './harness.ts';

/**
 * Walks every route the query app registers and calls it as a viewer, with an API key, as the
 * owner of another Footfall instance (its cookie and CSRF token) and with no credential, checking
 * the status against the route's declared access and that the control database is unchanged
 * (and no analytics were deleted).
 */

/** The whole table, pinned: changing who may call a route means changing this test too. */
const EXPECTED: Record<string, Access> = {
  'GET /livez': 'public',
  'GET /metrics': 'metrics',
  'POST /mcp': 'mcp',
  'GET /mcp': 'mcp',
  'DELETE /mcp': 'mcp',
  'GET /api/v1/health': 'viewer',
  'GET /api/v1/setup': 'public',
  'POST /api/v1/setup': 'setup',
  'POST /api/v1/session': 'sign-in',
  'POST /api/v1/session/two-step': 'sign-in',
  'GET /api/v1/session/methods': 'public',
  'GET /api/v1/session/oidc': 'sign-in',
  'GET /api/v1/session/oidc/callback': 'sign-in',
  'GET /api/v1/session': 'self',
  'DELETE /api/v1/session': 'self',
  'PUT /api/v1/account/password': 'self',
  'POST /api/v1/account/two-step/setup': 'self',
  'POST /api/v1/account/two-step/confirm': 'self',
  'DELETE /api/v1/account/two-step': 'self',
  'GET /api/v1/account/email-reports': 'self',
  'PUT /api/v1/account/email-reports/:site': 'self',
  'POST /api/v1/account/email-reports/:site/send': 'self',
  'GET /api/v1/people': 'owner',
  'POST /api/v1/people': 'owner',
  'PATCH /api/v1/people/:id': 'owner',
  'DELETE /api/v1/people/:id': 'owner',
  'GET /api/v1/api-keys': 'owner',
  'POST /api/v1/api-keys': 'owner',
  'DELETE /api/v1/api-keys/:id': 'owner',
  'GET /api/v1/sites': 'viewer',
  'POST /api/v1/sites': 'owner',
  'GET /api/v1/sites/:site': 'viewer',
  'PATCH /api/v1/sites/:site': 'owner',
  'DELETE /api/v1/sites/:site': 'owner',
  'POST /api/v1/sites/:site/proxy-key': 'owner',
  'GET /api/v1/sites/:site/shields': 'owner',
  'GET /api/v1/site-layout': 'viewer',
  'PUT /api/v1/site-layout': 'owner',
  'GET /api/v1/site-access': 'owner',
  'PUT /api/v1/site-access/:id': 'owner',
  'GET /api/v1/site-trends': 'viewer',
  'GET /api/v1/report': 'viewer',
  'GET /api/v1/sites/:site/report': 'viewer',
  'GET /api/v1/sites/:site/export.csv': 'viewer',
  'GET /api/v1/sites/:site/now': 'viewer',
  'GET /api/v1/sites/:site/events': 'viewer',
  'GET /api/v1/sites/:site/live': 'viewer',
  'GET /api/v1/sites/:site/report/heatmap': 'viewer',
  'GET /api/v1/sites/:site/report/charts': 'viewer',
  'GET /api/v1/sites/:site/moments': 'viewer',
  'GET /api/v1/sites/:site/report/retention': 'viewer',
  'GET /api/v1/sites/:site/report/breakdown': 'viewer',
  'GET /api/v1/sites/:site/status': 'viewer',
  'GET /api/v1/sites/:site/journey/:visitor': 'viewer',
  'GET /api/v1/sites/:site/payments/connections': 'owner',
  'POST /api/v1/sites/:site/payments/connections': 'owner',
  'PATCH /api/v1/sites/:site/payments/connections/:id': 'owner',
  'GET /api/v1/sites/:site/payments/connections/:id/secret': 'owner',
  'POST /api/v1/sites/:site/payments/connections/:id/secret': 'owner',
  'POST /api/v1/sites/:site/payments/connections/:id/sync': 'owner',
  'DELETE /api/v1/sites/:site/payments/connections/:id': 'owner',
  'POST /api/v1/data-requests/find': 'owner',
  'POST /api/v1/data-requests/erase': 'owner',
  'GET /api/v1/sites/:site/annotations': 'viewer',
  'GET /api/v1/sites/:site/segments': 'viewer',
  'POST /api/v1/sites/:site/segments': 'self',
  'PATCH /api/v1/sites/:site/segments/:id': 'self',
  'DELETE /api/v1/sites/:site/segments/:id': 'self',
  'GET /api/v1/sites/:site/goals': 'viewer',
  'GET /api/v1/sites/:site/favicon': 'viewer',
  'GET /api/v1/sites/:site/card': 'viewer',
  'GET /api/v1/sites/:site/report/vitals': 'viewer',
  'GET /api/v1/sites/:site/report/crawlers': 'viewer',
  'GET /api/v1/sites/:site/report/ai-search': 'viewer',
  'GET /api/v1/sites/:site/report/goal-props': 'viewer',
  'POST /api/v1/sites/:site/annotations': 'owner',
  'PATCH /api/v1/sites/:site/annotations/:id': 'owner',
  'DELETE /api/v1/sites/:site/annotations/:id': 'owner',
  'POST /api/v1/sites/:site/goals': 'owner',
  'PATCH /api/v1/sites/:site/goals/:id': 'owner',
  'DELETE /api/v1/sites/:site/goals/:id': 'owner',
  'GET /api/v1/sites/:site/imports': 'owner',
  'POST /api/v1/sites/:site/imports': 'owner',
  'DELETE /api/v1/sites/:site/imports/:id': 'owner',
  'GET /api/v1/sites/:site/funnels': 'viewer',
  'POST /api/v1/sites/:site/funnels': 'owner',
  'PATCH /api/v1/sites/:site/funnels/:id': 'owner',
  'DELETE /api/v1/sites/:site/funnels/:id': 'owner',
  'GET /api/v1/sites/:site/report/funnels': 'viewer',
  'GET /api/v1/sites/:site/alerts': 'owner',
  'POST /api/v1/sites/:site/alerts': 'owner',
  'PATCH /api/v1/sites/:site/alerts/:id': 'owner',
  'DELETE /api/v1/sites/:site/alerts/:id': 'owner',
  'POST /api/v1/sites/:site/alerts/:id/test': 'owner',
  'GET /api/v1/sites/:site/shares': 'owner',
  'POST /api/v1/sites/:site/shares': 'owner',
  'PATCH /api/v1/sites/:site/shares/:id': 'owner',
  'DELETE /api/v1/sites/:site/shares/:id': 'owner',
  'GET /api/v1/shared/:token': 'public',
  'POST /api/v1/shared/:token/session': 'sign-in',
  'GET /api/v1/sites/:site/search-console': 'owner',
  'PUT /api/v1/sites/:site/search-console': 'owner',
  'DELETE /api/v1/sites/:site/search-console': 'owner',
  'GET /api/v1/sites/:site/milestones': 'viewer',
  'PUT /api/v1/sites/:site/milestones': 'owner',
  'POST /api/v1/sites/:site/milestones/seen': 'self',
  'GET /api/v1/sites/:site/milestones/:kind/:step/card': 'viewer',
  'POST /api/v1/sites/:site/milestones/:kind/:step/share': 'owner',
  'DELETE /api/v1/sites/:site/milestones/:kind/:step/share': 'owner',
  'GET /m/:token': 'public',
  'GET /m/:token/card.png': 'public',
  'GET /unsubscribe/:token': 'public',
  'POST /unsubscribe/:token': 'public',
  'GET /_footfall/health': 'operator',
  'GET /_footfall/usage': 'operator',
};

const WRONG = 'wrong password!!';
/** Bodies an owner could send; refusals must come from access, not from validation. */
const BODIES: Record<string, unknown> = {
  'POST /api/v1/setup': { token: SETUP_TOKEN, email: 'new@example.com', password: PASSWORD },
  'POST /api/v1/session': { email: 'viewer@example.com', password: WRONG },
  'POST /api/v1/session/two-step': { challenge: 'no-such-challenge', code: '123456' },
  'PUT /api/v1/account/password': { current_password: WRONG, new_password: 'another new password' },
  'POST /api/v1/account/two-step/setup': { password: WRONG },
  'POST /api/v1/account/two-step/confirm': { code: '123456' },
  'DELETE /api/v1/account/two-step': { password: WRONG, code: '123456' },
  'PUT /api/v1/account/email-reports/:site': { weekly: true, monthly: false },
  'POST /api/v1/account/email-reports/:site/send': { period: 'week' },
  'POST /api/v1/people': { email: 'new@example.com', role: 'owner' },
  'PATCH /api/v1/people/:id': { role: 'viewer' },
  'POST /api/v1/api-keys': { name: 'walk' },
  'POST /api/v1/sites': { domain: 'new.example.org' },
  'PATCH /api/v1/sites/:site': { cookieless: true },
  'PUT /api/v1/site-layout': { order: [], pins: [], groups: [] },
  'PUT /api/v1/site-access/:id': { sites: [] },
  'POST /api/v1/sites/:site/payments/connections': { provider: 'custom' },
  'PATCH /api/v1/sites/:site/payments/connections/:id': { name: 'walk' },
  'POST /api/v1/sites/:site/payments/connections/:id/sync': {},
  'POST /api/v1/data-requests/find': { email: 'payer@example.com' },
  'POST /api/v1/data-requests/erase': { email: 'payer@example.com' },
  'POST /api/v1/sites/:site/annotations': { date: '2026-11-20', text: 'walk' },
  'PATCH /api/v1/sites/:site/annotations/:id': { text: 'walk' },
  'POST /api/v1/sites/:site/goals': { name: 'walk', kind: 'page', match: '/walk' },
  'PATCH /api/v1/sites/:site/goals/:id': { name: 'walk' },
  'POST /api/v1/sites/:site/alerts': { channel: 'webhook', url: 'https://hooks.example.com/walk' },
  'PATCH /api/v1/sites/:site/alerts/:id': { kinds: ['health'] },
  'POST /api/v1/sites/:site/shares': { label: 'walk' },
  'POST /api/v1/sites/:site/funnels': {
    name: 'walk',
    steps: [
      { kind: 'page', match: '/' },
      { kind: 'page', match: '/b' },
    ],
  },
  'PATCH /api/v1/sites/:site/funnels/:id': { name: 'walk' },
  'PATCH /api/v1/sites/:site/shares/:id': { show_notes: false },
  'POST /api/v1/shared/:token/session': { password: 'not the password' },
  'PUT /api/v1/sites/:site/milestones': { kinds: ['visitors'] },
  'PUT /api/v1/sites/:site/search-console': { property: 'sc-domain:example.com', service_account_key: '{}' },
  'POST /api/v1/sites/:site/milestones/seen': { kind: 'visitors', step: '100' },
  'POST /api/v1/sites/:site/milestones/:kind/:step/share': { show_amount: true },
};

/** Query strings of reads that need one; refusals must come from access, not from validation. */
const QUERIES: Record<string, string> = {
  'GET /api/v1/sites/:site/report/breakdown': '?dim=channel',
  'GET /api/v1/sites/:site/report/goal-props': '?goal=walked',
};

/**
 * Routes whose answer to everybody is neither a success nor a refusal: starting a single sign-on
 * sends anyone to the provider.
 */
const REDIRECTS: Record<string, number> = { 'GET /api/v1/session/oidc': 302 };

type Caller = 'viewer' | 'api key' | 'share link' | 'owner of another instance' | 'no credential';
const CALLERS: Caller[] = ['viewer', 'api key', 'share link', 'owner of another instance', 'no credential'];

/** The status each caller must get for each access level. `ok` means any 2xx. */
function expected(
  access: Access,
  caller: Caller,
  changing: boolean,
  key: string,
): number | 'ok' | 'not-refused' {
  // a share link's credential reads its site's report routes and nothing else (SHARE_READS)
  if (REDIRECTS[key] !== undefined) return REDIRECTS[key];
  if (caller === 'share link' && !['public', 'sign-in', 'setup', 'operator', 'metrics'].includes(access)) {
    return SHARE_READS.has(key) ? 'ok' : 403;
  }
  switch (access) {
    case 'public':
      return 'ok';
    case 'setup':
      return 403; // setup is done: the token opens nothing
    case 'sign-in':
      return 401; // wrong password / unknown challenge
    case 'operator':
      return 404; // FOOTFALL_OPERATOR_TOKEN is unset
    case 'viewer':
      return caller === 'viewer' || caller === 'api key' ? 'ok' : 401;
    case 'self':
      if (caller === 'viewer') return changing ? 'not-refused' : 'ok';
      return caller === 'api key' ? 403 : 401;
    case 'owner':
      return caller === 'viewer' || caller === 'api key' ? 403 : 401;
    case 'metrics':
      return 403; // FOOTFALL_METRICS_TOKEN is unset: closed
    case 'mcp':
      // an API key reaches the MCP server (whose tools only read); a session is refused
      return caller === 'api key' ? 'not-refused' : caller === 'viewer' ? 403 : 401;
  }
}

let h: AccountsApp;
let other: AccountsApp;
let ids: { site: string; owner: string; viewer: string; key: string; connection: string; share: string };
let shareToken: string;
let milestoneToken: string;
let unsubscribe: string;
let shareCredential: string;
let apiKey: string;
let otherOwner: Agent;

let idp: OidcProvider;

beforeAll(async () => {
  // single sign-on set up, so its routes answer as they do in use (the provider is real)
  idp = await startOidcProvider('http://walk.example/api/v1/session/oidc/callback');
  h = await accountsApp({
    env: {
      FOOTFALL_BASE_URL: 'http://walk.example',
      FOOTFALL_OIDC_ISSUER: idp.issuer,
      FOOTFALL_OIDC_CLIENT_ID: idp.clientId,
      FOOTFALL_OIDC_CLIENT_SECRET: idp.clientSecret,
    },
  });
  other = await accountsApp();
  const owner = await h.setup('owner@example.com');
  otherOwner = await other.setup('owner@example.com');
  const site = (await (
    await h.call('POST', '/api/v1/sites', { body: { domain: 'example.com' }, agent: owner })
  ).json()) as {
    site: { id: string };
  };
  await h.call('POST', '/api/v1/sites', { body: { domain: 'second.example.com' }, agent: owner });
  const viewer = (await (
    await h.call('POST', '/api/v1/people', {
      body: { email: 'viewer@example.com', role: 'viewer', password: PASSWORD },
      agent: owner,
    })
  ).json()) as { person: { id: string } };
  h.control.raw.prepare('UPDATE people SET must_change_password = 0').run();
  const key = (await (
    await h.call('POST', '/api/v1/api-keys', { body: { name: 'k' }, agent: owner })
  ).json()) as {
    api_key: { id: string };
    key: string;
  };
  apiKey = key.key;
  const ownerRow = h.control.raw.prepare(`SELECT id FROM people WHERE role = 'owner'`).get() as {
    id: string;
  };
  const connection = (await (
    await h.call('POST', `/api/v1/sites/${site.site.id}/payments/connections`, {
      body: { provider: 'custom' },
      agent: owner,
    })
  ).json()) as { id: string };
  // a favicon as the weekly fetch stores it (a 1×1 GIF)
  storeFavicon(h.control, site.site.id, {
    contentType: 'image/gif',
    bytes: Buffer.from('R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==', 'base64'),
  });
  await h.call('POST', `/api/v1/sites/${site.site.id}/goals`, {
    body: { name: 'walked', kind: 'event', match: 'Walk' },
    agent: owner,
  });
  // a share link that shows notes and has a password: opening it without the password fails
  const shared = (await (
    await h.call('POST', `/api/v1/sites/${site.site.id}/shares`, {
      body: { password: 'walk password', show_notes: true },
      agent: owner,
    })
  ).json()) as { share: { id: string; url: string } };
  shareToken = shared.share.url.slice(shared.share.url.lastIndexOf('/') + 1);
  shareCredential = (
    (await (
      await h.call('POST', `/api/v1/shared/${shareToken}/session`, { body: { password: 'walk password' } })
    ).json()) as { credential: string }
  ).credential;
  // a milestone as the daily check stores it, shared at /m/<token>
  const milestone = recordMilestone(h.control, {
    siteId: site.site.id,
    kind: 'visitors',
    step: '100',
    value: 104,
    day: '2026-02-28',
  })!;
  milestoneToken = shareMilestone(h.control, milestone.id, false).token!;
  // the owner's weekly report link of the site, which they do not receive: following it stops nothing
  unsubscribe = unsubscribeToken(h.control, ownerRow.id, site.site.id, 'weekly');
  ids = {
    site: site.site.id,
    owner: ownerRow.id,
    viewer: viewer.person.id,
    key: key.api_key.id,
    connection: connection.id,
    share: shared.share.id,
  };
});
afterAll(async () => {
  await h.cleanup();
  await other.cleanup();
  await idp.close();
});

function registered(): string[] {
  const keys = h.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`);
  return [...new Set(keys)].sort();
}

function fillPath(key: string): string {
  const path = key.slice(key.indexOf(' ') + 1);
  const id = path.startsWith('/api/v1/api-keys')
    ? ids.key
    : path.startsWith('/api/v1/site-access')
      ? ids.viewer
      : path.includes('/payments/connections/')
        ? ids.connection
        : path.includes('/shares/')
          ? ids.share
          : ids.owner;
  const filled = path
    .replace(':site', ids.site)
    .replace(
      ':token',
      path.startsWith('/m/') ? milestoneToken : path.startsWith('/unsubscribe/') ? unsubscribe : shareToken,
    )
    .replace(':kind', 'visitors')
    .replace(':step', '100')
    .replace(':id', id)
    .replace(/:[A-Za-z_]+/g, 'placeholder-id');
  return `${filled}${QUERIES[key] ?? ''}`;
}

/** The control database, minus bookkeeping a read may update and rows of `exceptPerson`. */
function snapshot(exceptPerson?: string): string {
  const tables = h.control.raw
    .prepare(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
    .all() as { name: string }[];
  const out: Record<string, unknown> = {};
  for (const { name } of tables) {
    out[name] = (
      h.control.raw.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all() as Record<string, unknown>[]
    )
      .filter((r) => exceptPerson === undefined || (r.person_id !== exceptPerson && r.id !== exceptPerson))
      .map((r) => {
        const { last_used_at: _u, last_seen_at: _s, ...rest } = r;
        return rest;
      });
  }
  return JSON.stringify(out);
}

/**
 * The viewer's signed-in agent, kept until a route of their own account may have changed it (a
 * sign-out, a password change): a sign-in costs a password check (about 0.4 s of scrypt).
 */
let viewerAgent: Agent | undefined;

async function credentials(caller: Caller): Promise<Pick<CallOptions, 'agent' | 'bearer'>> {
  switch (caller) {
    case 'viewer':
      viewerAgent ??= await h.signIn('viewer@example.com');
      return { agent: viewerAgent };
    case 'api key':
      return { bearer: apiKey };
    case 'owner of another instance':
      return { agent: Object.assign(Object.create(Object.getPrototypeOf(otherOwner)), otherOwner) };
    case 'share link':
      return { bearer: shareCredential };
    case 'no credential':
      return {};
  }
}

describe('the access walk', () => {
  it('declares every registered route, and every declared route is registered', () => {
    expect(registered()).toEqual(Object.keys(ROUTE_ACCESS).sort());
    expect(ROUTE_ACCESS).toEqual(EXPECTED);
  });

  for (const caller of CALLERS) {
    it(`answers every route correctly as ${caller} and changes nothing it may not`, async () => {
      const failures: string[] = [];
      for (const key of registered()) {
        const access = ROUTE_ACCESS[key as keyof typeof ROUTE_ACCESS] as Access;
        const method = key.slice(0, key.indexOf(' '));
        const changing = !['GET', 'HEAD'].includes(method);
        const creds = await credentials(caller);
        const selfChange = caller === 'viewer' && access === 'self' && changing;
        const before = snapshot(selfChange ? ids.viewer : undefined);
        const res = await h.call(method, fillPath(key), {
          ...creds,
          body: BODIES[key] ?? (changing ? {} : undefined),
        });
        const after = snapshot(selfChange ? ids.viewer : undefined);
        if (selfChange) viewerAgent = undefined;
        const want = expected(access, caller, changing, key);
        const ok =
          want === 'ok'
            ? res.status >= 200 && res.status < 300
            : want === 'not-refused'
              ? ![401, 403].includes(res.status)
              : res.status === want;
        if (!ok) failures.push(`${key}: got ${res.status}, want ${want} (${await res.text()})`);
        if (after !== before) failures.push(`${key}: changed the control database`);
      }
      expect(failures).toEqual([]);
      expect(h.deleted).toEqual([]);
    });
  }
});
