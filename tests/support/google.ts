import { generateKeyPairSync, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The service account the fake knows, and the property it may read. */
export const SERVICE_ACCOUNT = 'footfall@project.iam.gserviceaccount.com';

export interface FakeGoogle {
  url: string;
  /** a service-account JSON key file of SERVICE_ACCOUNT, as Google gives it */
  keyFile: string;
  /** what the Search Analytics API answers: clicks per page URL and day */
  rows: { date: string; page: string; clicks: number }[];
  /** the queries it was asked, newest last */
  queries: { property: string; body: Record<string, unknown> }[];
  /** the GA4 property the Data API answers for, and its days (GA4_DAY: what each breakdown holds) */
  ga4: {
    property: string;
    days: Ga4Day[];
    /** runReport calls answered so far */
    calls: number;
    /** answer 429 "too many requests" to this many calls first (a retry waits and goes on) */
    busyFirst: number;
    /** from this call on, answer 429 for the day's quota used up */
    dailyQuotaAt: number;
    /** most rows in one answer, whatever the limit asked (the client must page by rowCount) */
    pageCap: number;
  };
  close(): Promise<void>;
}

/** One GA4 day: users, sessions, pageviews, engaged sessions and seconds a session. */
export interface Ga4Day {
  date: string;
  users: number;
  sessions: number;
  views: number;
  engaged: number;
  seconds: number;
}

/** `n` GA4 days from `from` on, each with the same numbers. */
export function ga4Days(from: string, n: number, numbers: Omit<Ga4Day, 'date'>): Ga4Day[] {
  return Array.from({ length: n }, (_, i) => ({
    date: new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
    ...numbers,
  }));
}

/**
 * What the fake Data API answers for one day and one breakdown dimension: value, then the share
 * of the day's numbers it gets (every breakdown splits the whole day), or for eventName the events.
 */
function ga4Rows(d: Ga4Day, dims: string[]): { values: string[]; share: number; events?: number }[] {
  const date = d.date.replaceAll('-', '');
  const by = dims.slice(1);
  const two = (a: string[], b: string[], shareA: number) => [
    { values: [date, ...a], share: shareA },
    { values: [date, ...b], share: 1 - shareA },
  ];
  switch (by.join(',')) {
    case '':
      return [{ values: [date], share: 1 }];
    case 'sessionSource,sessionMedium':
      return two(['google', 'organic'], ['(direct)', '(none)'], 0.5);
    case 'sessionCampaignName':
      return two(['spring_sale'], ['(not set)'], 0.25);
    case 'pagePath':
      return two(['/'], ['/pricing'], 0.5);
    case 'landingPage':
      return [{ values: [date, '/'], share: 1 }];
    case 'countryId':
      return [{ values: [date, 'DE'], share: 1 }];
    case 'deviceCategory':
      return two(['desktop'], ['mobile'], 0.5);
    case 'browser':
      return [{ values: [date, 'Chrome'], share: 1 }];
    case 'operatingSystem':
      return [{ values: [date, 'Macintosh'], share: 1 }];
    case 'eventName':
      return [
        { values: [date, 'page_view'], share: 1, events: d.views },
        { values: [date, 'sign_up'], share: 0.1, events: 2 },
      ];
    default:
      return [];
  }
}

const b64json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/**
 * A local server speaking Google's documented shapes for tests (no network here): the OAuth 2.0
 * token endpoint for service accounts (`/token`: a JWT bearer assertion, RS256, checked against
 * the key's public half, its issuer, scope, audience and lifetime) and Search Console's Search
 * Analytics query (`/webmasters/v3/sites/{property}/searchAnalytics/query`), which answers 403
 * for any property but `property`.
 */
export async function startFakeGoogle(property: string): Promise<FakeGoogle> {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = JSON.stringify({
    type: 'service_account',
    project_id: 'project',
    private_key_id: 'abc123',
    private_key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: SERVICE_ACCOUNT,
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  const fake = {
    rows: [],
    queries: [],
    ga4: {
      property: '',
      days: [],
      calls: 0,
      busyFirst: 0,
      dailyQuotaAt: Number.POSITIVE_INFINITY,
      pageCap: Number.POSITIVE_INFINITY,
    },
  } as unknown as FakeGoogle;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.url === '/token' && req.method === 'POST') {
        const form = new URLSearchParams(body);
        const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
        const signed = verify(
          'RSA-SHA256',
          Buffer.from(`${header}.${claims}`),
          pair.publicKey,
          Buffer.from(signature ?? '', 'base64url'),
        );
        const c = b64json(claims ?? '');
        const ok =
          form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
          signed &&
          b64json(header ?? '').alg === 'RS256' &&
          c.iss === SERVICE_ACCOUNT &&
          (c.scope === 'https://www.googleapis.com/auth/webmasters.readonly' ||
            c.scope === 'https://www.googleapis.com/auth/analytics.readonly') &&
          c.aud === `${fake.url}/token` &&
          c.exp - c.iat === 3600;
        if (!ok) return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
        return json(200, { access_token: 'ya29.token', expires_in: 3599, token_type: 'Bearer' });
      }
      const m = /^\/webmasters\/v3\/sites\/([^/]+)\/searchAnalytics\/query$/.exec(req.url ?? '');
      if (m && req.method === 'POST') {
        if (req.headers.authorization !== 'Bearer ya29.token')
          return json(401, {
            error: { code: 401, message: 'Request had invalid authentication credentials.' },
          });
        const asked = decodeURIComponent(m[1]!);
        if (asked !== property)
          return json(403, {
            error: { code: 403, message: `User does not have sufficient permission for site '${asked}'.` },
          });
        const q = JSON.parse(body) as { startDate: string; endDate: string };
        fake.queries.push({ property: asked, body: q });
        const inRange = fake.rows.filter((r) => r.date >= q.startDate && r.date <= q.endDate);
        return json(200, {
          rows: inRange.map((r) => ({
            keys: [r.date, r.page],
            clicks: r.clicks,
            impressions: r.clicks * 10,
          })),
          responseAggregationType: 'byPage',
        });
      }
      const report = /^\/analyticsdata\/v1beta\/properties\/([^/:]+):runReport$/.exec(req.url ?? '');
      if (report && req.method === 'POST') {
        if (req.headers.authorization !== 'Bearer ya29.token')
          return json(401, {
            error: { code: 401, message: 'Request had invalid authentication credentials.' },
          });
        if (report[1] !== fake.ga4.property)
          return json(403, {
            error: { code: 403, message: 'User does not have sufficient permissions for this property.' },
          });
        const g = fake.ga4;
        g.calls++;
        if (g.calls <= g.busyFirst)
          return json(429, { error: { code: 429, message: 'Too many concurrent requests.' } });
        if (g.calls >= g.dailyQuotaAt)
          return json(429, {
            error: { code: 429, message: 'Exhausted property tokens per day for a property.' },
          });
        const q = JSON.parse(body) as {
          dateRanges: { startDate: string; endDate: string }[];
          dimensions: { name: string }[];
          metrics: { name: string }[];
          limit: number;
          offset: number;
        };
        const dims = q.dimensions.map((x) => x.name);
        const mets = q.metrics.map((x) => x.name);
        const range = q.dateRanges[0]!;
        const all = g.days
          .filter((d) => d.date >= range.startDate && d.date <= range.endDate)
          .flatMap((d) =>
            ga4Rows(d, dims).map((r) => ({
              dimensionValues: r.values.map((value) => ({ value })),
              metricValues: mets.map((m) => {
                const part = (n: number) => String(Math.round(n * r.share));
                const value: Record<string, string> = {
                  totalUsers: part(d.users),
                  sessions: part(d.sessions),
                  screenPageViews: part(d.views),
                  engagedSessions: part(d.engaged),
                  averageSessionDuration: String(d.seconds),
                  eventCount: String(r.events ?? 0),
                };
                return { value: value[m] ?? '0' };
              }),
            })),
          );
        return json(200, {
          dimensionHeaders: dims.map((name) => ({ name })),
          metricHeaders: mets.map((name) => ({ name, type: 'TYPE_INTEGER' })),
          rows: all.slice(q.offset, q.offset + Math.min(q.limit, g.pageCap)),
          rowCount: all.length,
          kind: 'analyticsData#runReport',
        });
      }
      json(404, { error: { code: 404, message: 'Not Found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.keyFile = keyFile;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
