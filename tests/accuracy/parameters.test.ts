import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccuracyStack, API_TOKEN, startAccuracyStack } from './stack.ts';

let stack: AccuracyStack;
beforeAll(async () => {
  stack = await startAccuracyStack();
}, 60_000);
afterAll(async () => stack?.stop());

const bad: [query: string, field: string][] = [
  ['from=garbage', 'from'],
  ['from=2026-02-30', 'from'],
  ['from=2026-11-10&to=2026-11-01', 'to'],
  ['bucket=minute', 'bucket'],
  ['compare=custom', 'cfrom'],
  ['compare=custom&cfrom=2026-10-01', 'cto'],
  ['compare=sometimes', 'compare'],
  ['cfrom=2026-10-01', 'cfrom'],
  ['f=nodim:x', 'f'],
  ['f=channel', 'f'],
  ['limit=0', 'limit'],
  ['limit=1001', 'limit'],
  ['daily=yes', 'daily'],
  ['from=2026-01-01&to=2026-03-01&bucket=hour', 'bucket'],
  ['from=2026-11-01&from=2026-11-02', 'from'],
  ['colour=blue', 'colour'],
];

describe.each(['report', 'export.csv'])('GET /api/v1/sites/:site/%s', (endpoint) => {
  const path = (site: string, query: string) => `/sites/${site}/${endpoint}?${query}`;

  it.each(bad)('answers ?%s with 400 naming %s', async (query, field) => {
    const res = await stack.get(path(stack.sites.utc.id, query));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ code: 'invalid_parameter', field, message: expect.any(String) });
  });

  it('answers an unknown site with 404', async () => {
    const res = await stack.get(path('no-such-site', 'from=2026-11-01&to=2026-11-01'));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers 401 without a credential and with a wrong one', async () => {
    const none = await stack.get(path(stack.sites.utc.id, ''), {});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    const wrong = await stack.get(path(stack.sites.utc.id, ''), { authorization: `Bearer ${API_TOKEN}x` });
    expect(wrong.status).toBe(401);
  });

  it('answers good parameters with 200', async () => {
    const res = await stack.get(
      path(stack.sites.utc.id, 'from=2026-11-01&to=2026-11-02&f=channel:Direct&daily=1'),
    );
    expect(res.status).toBe(200);
  });
});
