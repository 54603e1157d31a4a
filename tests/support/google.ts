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
  close(): Promise<void>;
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
  const fake = { rows: [], queries: [] } as unknown as FakeGoogle;
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
          c.scope === 'https://www.googleapis.com/auth/webmasters.readonly' &&
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
      json(404, { error: { code: 404, message: 'Not Found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.keyFile = keyFile;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
