import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type IngestEvent, IngestEventSchema } from '@footfall/schema';
import * as v from 'valibot';
import { renderTracker } from '../render.ts';
import type { TrackerVariant } from '../variants.ts';

/** How the stand-in answers `POST /api/e`: normally, with 503 + Retry-After, or not at all. */
export type GatewayMode = 'up' | 'unavailable' | 'refused';

/** A body that failed IngestEventSchema, with the reason, so a test can show what was wrong. */
export interface RejectedBody {
  body: string;
  issues: string[];
}

/**
 * The recording stand-in's view for the browser tests (tests/tracker). Those run against the real
 * stack; the stand-in remains for what the real gateway cannot do on demand (answer 503 with
 * Retry-After, serve the `vitals` build) and to log every body that reaches it, valid or not.
 */
export interface GatewayUnderTest {
  /** Origin the browser loads `/js/<site>.js` from and posts `/api/e` to. */
  readonly url: string;
  /** Accepted events, the first copy of each id only (the server drops repeated ids). */
  events(): IngestEvent[];
  /** How many valid `POST /api/e` bodies arrived, repeats included. */
  deliveries(): number;
  /** Bodies that failed the schema (must stay empty: the tracker never sends an invalid body). */
  rejected(): RejectedBody[];
  /** Every request to `/api/e` of any method, to prove that nothing at all was sent. */
  hits(): number;
  setMode(mode: GatewayMode): Promise<void>;
  close(): Promise<void>;
}

export interface RecordingGatewayOptions {
  /** Sites it serves scripts for, with their mode. */
  sites: Record<string, { cookieless: boolean }>;
  /** Retry-After seconds sent with 503 while `unavailable`. */
  retryAfterSeconds?: number;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': 'Content-Type',
  // Without this a cross-origin page cannot read Retry-After (not a CORS-safelisted header).
  'Access-Control-Expose-Headers': 'Retry-After',
  'Access-Control-Max-Age': '600',
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * A stand-in for the ingest gateway on 127.0.0.1 (port 0): serves `GET /js/<site>.js` through
 * renderTracker (`?variant=` picks a build), answers CORS preflight, and records every
 * `POST /api/e` body after validating it with IngestEventSchema (202, or 400 with the issues).
 * @example
 * const gateway = await startRecordingGateway({ sites: { demo: { cookieless: false } } });
 * await gateway.setMode('unavailable'); // 503 + Retry-After
 */
export async function startRecordingGateway(options: RecordingGatewayOptions): Promise<GatewayUnderTest> {
  const byId = new Map<string, IngestEvent>();
  const rejected: RejectedBody[] = [];
  let deliveries = 0;
  let hits = 0;
  let mode: GatewayMode = 'up';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const script = /^\/js\/([^/]+)\.js$/.exec(url.pathname);
    if (req.method === 'GET' && script) {
      const site = options.sites[decodeURIComponent(script[1]!)];
      if (!site) return void res.writeHead(404).end();
      const variant = (url.searchParams.get('variant') ?? 'default') as TrackerVariant;
      const { code, etag } = renderTracker({
        siteId: decodeURIComponent(script[1]!),
        cookieless: site.cookieless,
        variant,
      });
      res.writeHead(200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        ETag: etag,
        'Cache-Control': 'no-cache',
      });
      return void res.end(code);
    }
    if (url.pathname !== '/api/e') return void res.writeHead(404).end();
    hits++;
    if (req.method === 'OPTIONS') return void res.writeHead(204, CORS).end();
    const body = await readBody(req);
    if (mode === 'unavailable') {
      return void res
        .writeHead(503, { ...CORS, 'Retry-After': String(options.retryAfterSeconds ?? 1) })
        .end();
    }
    if (req.method !== 'POST' || !/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      rejected.push({ body, issues: [`${req.method} with content-type ${req.headers['content-type']}`] });
      return void res.writeHead(415, CORS).end();
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const result = v.safeParse(IngestEventSchema, parsed);
    // the tracker always sends an event id (only server senders may leave it out)
    if (!result.success || result.output.i === undefined) {
      rejected.push({
        body,
        issues: result.success
          ? ['i: the tracker must send an event id']
          : result.issues.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`),
      });
      return void res.writeHead(400, CORS).end();
    }
    deliveries++;
    if (!byId.has(result.output.i)) byId.set(result.output.i, result.output);
    res.writeHead(202, CORS).end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    events: () => [...byId.values()],
    deliveries: () => deliveries,
    rejected: () => [...rejected],
    hits: () => hits,
    async setMode(next) {
      if (mode === 'refused' && next !== 'refused') {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
      }
      if (next === 'refused' && mode !== 'refused') {
        const closed = once(server, 'close');
        server.close();
        server.closeAllConnections();
        await closed;
      }
      mode = next;
    },
    async close() {
      if (mode === 'refused') return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
