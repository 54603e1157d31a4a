import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, PASSWORD } from '../accounts/harness.ts';
import { type FakeGoogle, startFakeGoogle } from '../support/google.ts';
import {
  emailReportsFlow,
  sessionFlow,
  setupOwner,
  signIn,
  singleSignOnFlow,
  twoStepFlow,
} from './account-scenarios.ts';
import { type CheckedContract, type DocumentedApp, documentedApp, loadContract } from './documented-app.ts';
import { busy, rateLimited } from './limits.ts';
import {
  allSitesFlow,
  liveStream,
  loadVisits,
  reportParameterErrors,
  reportReads,
} from './report-scenarios.ts';
import {
  apiKeyFlow,
  layoutAndAccessFlow,
  operatorFlow,
  paymentConnectionFlow,
  peopleFlow,
  siteFlow,
} from './resource-scenarios.ts';
import {
  alertsFlow,
  goalsAndFunnelsFlow,
  importsFlow,
  milestonesFlow,
  notesFlow,
  searchConsoleFlow,
  segmentsFlow,
  shareBusy,
  sharesFlow,
  webhookReceiver,
} from './site-feature-scenarios.ts';
import {
  type Callers,
  type SweepIds,
  sweepBodies,
  sweepForbidden,
  sweepNotFound,
  sweepUnauthorized,
  takeProblems,
} from './sweeps.ts';

/**
 * Every operation of the query service, called on a real app (real control database, analytics
 * engine in memory, a few visits loaded), every answer (status, headers, body) validated against
 * docs/openapi.yaml. The last test requires that each documented status of each operation was
 * seen at least once, so the document cannot promise an answer nobody has checked.
 */

const OPERATOR_TOKEN = 'operator-token-for-api-docs-tests';
const API_TOKEN = 'api-token-for-api-docs-tests-0123';

let contract: CheckedContract;
let h: DocumentedApp;
const apps: DocumentedApp[] = [];
let who: Callers;
let ids: SweepIds & { owner: string; viewer: string };
const now = Date.now();
let google: FakeGoogle;
let hooks: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  contract = await loadContract();
  google = await startFakeGoogle('sc-domain:example.com');
  hooks = await webhookReceiver();
  h = await documentedApp(contract, {
    env: {
      FOOTFALL_OPERATOR_TOKEN: OPERATOR_TOKEN,
      FOOTFALL_API_TOKEN: API_TOKEN,
      FOOTFALL_UNSAFE_GOOGLE_API: google.url,
      FOOTFALL_UNSAFE_OUTBOUND_ALLOW: hooks.hostPort,
    },
  });
  apps.push(h);
  const owner = await setupOwner(h);
  const site = await h.call('POST', '/api/v1/sites', { body: { domain: 'example.com' }, agent: owner });
  const viewer = await h.call('POST', '/api/v1/people', {
    body: { email: 'viewer@example.com', role: 'viewer', password: PASSWORD },
    agent: owner,
  });
  await h.call('POST', '/api/v1/people', {
    body: { email: 'fresh@example.com', role: 'viewer', password: PASSWORD },
    agent: owner,
  });
  const viewerId = viewer.json<{ person: { id: string } }>().person.id;
  h.control.raw.prepare('UPDATE people SET must_change_password = 0 WHERE id = ?').run(viewerId);
  const key = await h.call('POST', '/api/v1/api-keys', { body: { name: 'sweeps' }, agent: owner });
  const ownerId = (await h.call('GET', '/api/v1/session', { agent: owner })).json<{
    person: { id: string };
  }>().person.id;
  ids = {
    site: site.json<{ site: { id: string } }>().site.id,
    person: viewerId,
    key: key.json<{ api_key: { id: string } }>().api_key.id,
    owner: ownerId,
    viewer: viewerId,
  };
  who = {
    owner,
    viewer: await signIn(h, 'viewer@example.com'),
    fresh: await signIn(h, 'fresh@example.com'),
    apiKey: key.json<{ key: string }>().key,
  };
  await loadVisits(h, ids.site, now);
});
afterEach(() => {
  expect(takeProblems(contract)).toEqual([]);
});
afterAll(async () => {
  for (const app of apps) await app.cleanup();
  await google?.close();
  hooks?.server.close();
});

const owner = (): Agent => who.owner;
const queryOps = () => contract.ops.filter((o) => o.access !== 'ingest');

/**
 * Statuses that need a payment provider's API on the other end: this in-process app has none, so
 * tests/payments/providers.test.ts shows them through the real processes and a local Stripe API.
 */
const NEEDS_A_PROVIDER: Record<string, string> = {
  'POST /api/v1/sites/{site}/payments/connections 502': 'the provider is unreachable at set-up',
  'POST /api/v1/sites/{site}/payments/connections/{id}/sync 200': 'a reconciliation that reads the provider',
  'POST /api/v1/sites/{site}/payments/connections/{id}/sync 502': 'a reconciliation that fails',
};

describe('the query API answers as docs/openapi.yaml says', () => {
  it('answers sign-in, the session and sign-out as documented', async () => {
    await sessionFlow(h);
  });

  it('answers single sign-on (not set up, and against a real OpenID provider) as documented', async () => {
    await singleSignOnFlow(h, async (env) => {
      const app = await documentedApp(contract, { env });
      apps.push(app);
      return app;
    });
  });

  it('answers a password change, two-step set-up, a two-step sign-in and two-step off as documented', async () => {
    await twoStepFlow(h, owner());
  });

  it('answers people, API keys, sites, the site layout and site access as documented', async () => {
    await peopleFlow(h, owner(), ids.owner);
    await apiKeyFlow(h, owner());
    await siteFlow(h, owner(), who.viewer, API_TOKEN);
    await layoutAndAccessFlow(h, owner(), who.viewer, ids);
    await paymentConnectionFlow(h, owner(), ids.site);
  });

  it('answers notes, goals, funnels, alert destinations, share links, milestones and Search Console as documented', async () => {
    await notesFlow(h, owner(), ids.site);
    await segmentsFlow(h, owner(), who.viewer, ids.site);
    await importsFlow(h, owner(), ids.site);
    await goalsAndFunnelsFlow(h, owner(), ids.site);
    await alertsFlow(h, owner(), ids.site, hooks.url);
    await sharesFlow(h, owner(), ids.site);
    await milestonesFlow(h, owner(), ids.site);
    await emailReportsFlow(h, owner(), ids.site);
    await searchConsoleFlow(h, owner(), ids.site, google);
  });

  it('answers the report, CSV, now, events, heatmap, retention and journey with data as documented', async () => {
    await reportReads(h, ids.site, who.viewer, now);
    const noSites = await documentedApp(contract, { env: { FOOTFALL_API_TOKEN: API_TOKEN } });
    apps.push(noSites);
    await allSitesFlow(h, owner(), who.viewer, ids.site, now, noSites, API_TOKEN);
    await reportParameterErrors(h, ids.site, who.viewer);
  });

  it('streams live visits as documented events', async () => {
    await liveStream(h, ids.site, who.viewer, now);
  });

  it('answers the operator endpoints as documented, with the token set and unset', async () => {
    const plain = await documentedApp(contract);
    apps.push(plain);
    await operatorFlow(h, plain, OPERATOR_TOKEN);
  });

  it('refuses every credentialed route without a credential with a documented 401', async () => {
    expect(await sweepUnauthorized(h, queryOps(), ids)).toEqual([]);
  });

  it('refuses the wrong kind of caller on every route with a documented 403', async () => {
    expect(await sweepForbidden(h, queryOps(), ids, who)).toEqual([]);
  });

  it('answers unknown ids on every route with an id with a documented 404', async () => {
    expect(await sweepNotFound(h, queryOps(), owner())).toEqual([]);
  });

  it('answers bodies that are not JSON, too large or malformed with a documented 415, 413 or 400', async () => {
    expect(await sweepBodies(h, queryOps(), ids, owner(), who.apiKey)).toEqual([]);
  });

  it('answers too many failed password checks with a documented 429 and Retry-After', async () => {
    const tight = await documentedApp(contract, { checks: { perAddress: 1 } });
    apps.push(tight);
    await rateLimited(tight);
  });

  it('answers saturated password checks with a documented 503 busy and Retry-After', async () => {
    const saturated = await documentedApp(contract, { checks: { maxConcurrent: 0, maxWaitMs: 1 } });
    apps.push(saturated);
    await busy(saturated);
    await shareBusy(saturated);
  });

  it('has shown every documented status of every query operation at least once', () => {
    expect(
      contract
        .unseen([
          'health',
          'setup',
          'session',
          'account',
          'people',
          'api-keys',
          'sites',
          'site-layout',
          'site-access',
          'reports',
          'payments',
          'notes',
          'goals',
          'funnels',
          'alerts',
          'shares',
          'milestones',
          'search-console',
          'operator',
        ])
        .filter((status) => !NEEDS_A_PROVIDER[status]),
    ).toEqual([]);
  });
});
