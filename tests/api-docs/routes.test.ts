import { readFileSync } from 'node:fs';
import { createIngestApp } from '@footfall/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST_ROUTES } from '../../apps/ingest/src/post-handler.ts';
import { ROUTE_ACCESS } from '../../apps/query/src/auth/access.ts';
import { type AccountsApp, accountsApp } from '../accounts/harness.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { type ApiDoc, Contract, loadApiDoc, METHODS, openApiPath, operations } from './contract.ts';

/**
 * docs/openapi.yaml against the code: the same routes, the same access levels, a valid OpenAPI
 * 3.1 document whose every schema compiles in strict mode, and object schemas that refuse
 * undocumented fields.
 */

let doc: ApiDoc;
let raw: unknown;
let query: AccountsApp;
let gateway: TestGateway;

beforeAll(async () => {
  const loaded = await loadApiDoc();
  expect(loaded.errors).toBeUndefined();
  doc = loaded.doc;
  raw = loaded.raw;
  query = await accountsApp();
  gateway = await startTestGateway();
});
afterAll(async () => {
  await query.cleanup();
  await gateway.stop();
});

const registered = (routes: { method: string; path: string }[]) => [
  ...new Set(routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${openApiPath(r.path)}`)),
];

describe('docs/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect((await loadApiDoc()).errors).toBeUndefined();
    expect((raw as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('documents every route of the query app and nothing it does not register', () => {
    const fromApp = registered(query.app.routes).sort();
    const fromTable = Object.keys(ROUTE_ACCESS)
      .map((k) => openApiPath(k))
      .sort();
    expect(fromApp).toEqual(fromTable);
    const documented = operations(doc)
      .filter((o) => o.access !== 'ingest')
      .map((o) => o.key)
      .sort();
    expect(documented).toEqual(fromApp);
  });

  it('documents the ingest routes the gateway answers itself', () => {
    // GET /livez is answered by both processes, each for itself: documented once, as public
    const fromApp = [
      ...registered(createIngestApp(gateway.gateway.deps).routes).filter((r) => r !== 'GET /livez'),
      ...Object.keys(POST_ROUTES).map((path) => `POST ${path}`),
    ];
    // OPTIONS /api/e is the CORS middleware's preflight, registered as ALL
    const documented = operations(doc)
      .filter((o) => o.access === 'ingest' && o.method !== 'OPTIONS')
      .map((o) => o.key)
      .sort();
    expect(documented).toEqual(fromApp.sort());
    expect(documented).toEqual([
      'GET /js/{site}.js',
      'POST /api/crawl',
      'POST /api/e',
      'POST /api/event',
      'POST /api/send',
      'POST /webhooks/custom/{connection}',
      'POST /webhooks/{provider}/{connection}',
    ]);
  });

  it("gives every operation the access level of the route's entry in the access table", () => {
    const table = Object.fromEntries(Object.entries(ROUTE_ACCESS).map(([k, v]) => [openApiPath(k), v]));
    const mismatched = operations(doc)
      .filter((o) => o.access !== 'ingest' && table[o.key] !== o.access)
      .map((o) => `${o.key}: documented ${o.access}, declared ${table[o.key]}`);
    expect(mismatched).toEqual([]);
  });

  it('documents Server-Timing on every answer and a JSON error body on every 4xx and 5xx', () => {
    const c = new Contract(doc);
    const problems: string[] = [];
    for (const o of c.ops) {
      for (const [status, response] of Object.entries(o.op.responses)) {
        const resolved = response.$ref
          ? (doc.components.responses?.[response.$ref.split('/').at(-1)!] as typeof response)
          : response;
        if (!resolved.headers?.['Server-Timing']) problems.push(`${o.key} ${status}: no Server-Timing`);
        if (/^[45]/.test(status) && !resolved.content?.['application/json'])
          problems.push(`${o.key} ${status}: no JSON error body`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('compiles every schema in strict mode, and every error schema accepts the documented error shape only', () => {
    const c = new Contract(doc);
    for (const name of Object.keys(doc.components.schemas ?? {})) {
      expect(
        c.validate(`#/components/schemas/${name}`, undefined).some((p) => p.startsWith('no schema')),
      ).toBe(false);
    }
    const error = '#/components/responses/NotFound/content/application~1json/schema';
    expect(c.validate(error, { code: 'not_found', message: 'no such site' })).toEqual([]);
    expect(c.validate(error, { code: 'not_found', message: 'x', extra: 1 })).not.toEqual([]);
    expect(c.validate(error, { code: 'forbidden', message: 'x' })).not.toEqual([]);
    expect(c.validate(error, { message: 'x' })).not.toEqual([]);
  });

  it('has every operation in the guide, docs/api.md', () => {
    const guide = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const site = '/api/v1/sites/{site}';
    const missing = operations(doc)
      .map((o) => o.path)
      .filter((path) => {
        const short = path.startsWith(`${site}/`) ? `…${path.slice(site.length)}` : path;
        return !guide.includes(`${path}\``) && !guide.includes(`${short}\``) && !guide.includes(`${path} `);
      });
    expect(missing).toEqual([]);
  });

  /** Bodies another tool defines: the gateway ignores fields it does not know, as that tool does. */
  const FOREIGN_BODIES = ['PlausibleEvent', 'UmamiSend'];
  it('closes every object schema that lists its properties, so an undocumented field fails', () => {
    const open: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      // another tool's body (Plausible's, Umami's), read as leniently as that tool reads it
      if (FOREIGN_BODIES.some((name) => where === `#/components/schemas/${name}`)) return;
      const isObjectSchema = o.type === 'object' && typeof o.properties === 'object';
      if (isObjectSchema && o.additionalProperties !== false) open.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}/${k}`);
    };
    walk(doc.components.schemas, '#/components/schemas');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const m of METHODS) if (item[m]) walk(item[m], `${m.toUpperCase()} ${path}`);
    }
    expect(open).toEqual([]);
  });
});
