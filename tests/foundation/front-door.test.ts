import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { join } from 'node:path';
import { createLogger } from '@footfall/http';
import { CLIENT_ADDRESS_HEADER, forwardToQuery } from '@footfall/ingest';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/footfall.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A front door on a random port forwarding to `socketPath`. */
async function frontDoor(socketPath: string) {
  const server = createServer((req, res) =>
    forwardToQuery(req, res, {
      socketPath,
      logger,
      clientAddress: () => '203.0.113.9',
      clientProto: () => 'https',
      retryAfterSeconds: 7,
    }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  cleanups.push(() => server.closeAllConnections());
  const port = (server.address() as { port: number }).port;
  return { port };
}

async function upstream(handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const dir = tempDir();
  const socketPath = join(dir, 'query.sock');
  const server: Server = createServer(handler);
  server.listen(socketPath);
  await once(server, 'listening');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  cleanups.push(() => server.closeAllConnections());
  return { socketPath };
}

describe('the front door', () => {
  it('passes Server-Sent Events through as they are written, not when the stream ends', async () => {
    let sendSecond: () => void = () => {};
    const { socketPath } = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: one\n\n');
      sendSecond = () => res.end('data: two\n\n');
    });
    const { port } = await frontDoor(socketPath);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/sites/x/live`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    // the upstream has not finished: the first event arrived on its own
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    sendSecond();
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe('data: two\n\n');
  });

  it('streams a request body to the query service before the client has finished sending it', async () => {
    let firstChunkSeen: (s: string) => void = () => {};
    const firstChunk = new Promise<string>((r) => {
      firstChunkSeen = r;
    });
    const { socketPath } = await upstream((req, res) => {
      let body = '';
      req.once('data', (c: Buffer) => firstChunkSeen(c.toString()));
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => res.end(JSON.stringify({ got: body })));
    });
    const { port } = await frontDoor(socketPath);
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/import',
      headers: { 'transfer-encoding': 'chunked' },
    });
    const answer = new Promise<string>((resolve) =>
      req.on('response', (res) => {
        let t = '';
        res.on('data', (c: Buffer) => {
          t += c.toString();
        });
        res.on('end', () => resolve(t));
      }),
    );
    req.write('first-part;');
    expect(await firstChunk).toBe('first-part;');
    req.end('second-part');
    expect(JSON.parse(await answer)).toEqual({ got: 'first-part;second-part' });
  });

  it('sets the client address and protocol itself and drops copies a client sends', async () => {
    const { socketPath } = await upstream((req, res) => {
      res.setHeader('connection', 'keep-alive');
      res.end(
        JSON.stringify({
          address: req.headers[CLIENT_ADDRESS_HEADER],
          proto: req.headers['x-footfall-client-proto'],
          path: req.url,
        }),
      );
    });
    const { port } = await frontDoor(socketPath);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/sites?x=1`, {
      headers: { [CLIENT_ADDRESS_HEADER]: '6.6.6.6', 'x-footfall-client-proto': 'http' },
    });
    expect(await res.json()).toEqual({ address: '203.0.113.9', proto: 'https', path: '/api/v1/sites?x=1' });
  });

  it('answers 503 with Retry-After and a JSON body while the query service is down', async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { port } = await frontDoor(join(dir, 'nothing-here.sock'));
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/sites`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
    expect(await res.json()).toMatchObject({ code: 'unavailable' });
  });

  it('passes status, headers and body of the answer through unchanged', async () => {
    const { socketPath } = await upstream((_req, res) => {
      res.writeHead(418, { 'x-custom': 'yes', 'content-type': 'application/json' });
      res.end('{"teapot":true}');
    });
    const { port } = await frontDoor(socketPath);
    const res = await fetch(`http://127.0.0.1:${port}/anything`);
    expect(res.status).toBe(418);
    expect(res.headers.get('x-custom')).toBe('yes');
    expect(await res.json()).toEqual({ teapot: true });
  });
});
