import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVersion, clickhouseClient, UnsupportedServerError, waitForServer } from './connection.ts';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-conn-'));
  server = await startTestServer({ path: join(dir, 'ch'), port: 0, password: 'pw' });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('the ClickHouse connection', () => {
  it('accepts current LTS releases and refuses older ones, naming the minimum', () => {
    for (const v of ['25.8.1.1', '26.3.4.1', '26.7.2.1', '26.8.1.1', '27.1.1.1'])
      expect(() => checkVersion(v)).not.toThrow();
    for (const v of ['18.16.1', '23.8.16.40', '24.8.14.39', '25.3.6.56']) {
      expect(() => checkVersion(v)).toThrow(/needs ClickHouse 25\.8 or newer/);
    }
    expect(() => checkVersion('not-a-version')).toThrow(UnsupportedServerError);
  });

  it('finds the server, and takes credentials and the database from the URL', async () => {
    const url = `http://default:pw@127.0.0.1:${server.port}`;
    const admin = clickhouseClient({ url, database: 'ff_conn' }, { server: true });
    expect(await waitForServer(admin)).toBe(server.version);
    await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS ff_conn' });
    await admin.close();
    const client = clickhouseClient({ url, database: 'ff_conn' });
    await client.command({ query: 'CREATE TABLE t (n UInt64) ENGINE = MergeTree ORDER BY n' });
    await client.insert({ table: 't', values: [{ n: '18446744073709551615' }], format: 'JSONEachRow' });
    const rows = await (await client.query({ query: 'SELECT n FROM t', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ n: '18446744073709551615' }]);
    await client.close();
  });

  it('keeps trying a server it cannot reach, with backoff, and says why each time', async () => {
    const port = await freePort();
    const waits: { reason: string; delay: number }[] = [];
    const client = clickhouseClient(
      { url: `http://default:pw@127.0.0.1:${port}`, database: 'x' },
      { server: true },
    );
    const version = waitForServer(client, {
      firstDelayMs: 50,
      maxDelayMs: 200,
      onWaiting: (reason, _attempt, delay) => waits.push({ reason, delay }),
    });
    // the server comes up on that port a while later (one engine per process: a TCP forwarder
    // to the test server stands in for a server starting)
    await new Promise((r) => setTimeout(r, 400));
    const forward = createNetServer((socket) => {
      const upstream = connect(server.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => forward.listen(port, '127.0.0.1', resolve));
    try {
      expect(await version).toBe(server.version);
      expect(waits.length).toBeGreaterThanOrEqual(2);
      expect(waits[0]!.reason).toMatch(/cannot reach ClickHouse \(ECONNREFUSED\)/);
      expect(waits.map((w) => w.delay).slice(0, 3)).toEqual([50, 100, 200]);
    } finally {
      await client.close();
      await new Promise<void>((resolve) => forward.close(() => resolve()));
    }
  });

  it('refuses a server too old at once, without trying again', async () => {
    const old = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"version":"23.8.16.40"}\n');
    });
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const { port } = old.address() as AddressInfo;
    const client = clickhouseClient(
      { url: `http://default:@127.0.0.1:${port}`, database: 'x' },
      { server: true },
    );
    let waited = 0;
    try {
      await expect(waitForServer(client, { onWaiting: () => waited++ })).rejects.toThrow(
        'ClickHouse 23.8.16.40 is too old: Footfall needs ClickHouse 25.8 or newer (an LTS release)',
      );
      expect(waited).toBe(0);
    } finally {
      await client.close();
      await new Promise<void>((resolve) => old.close(() => resolve()));
    }
  });

  it('waits, saying why, while the credentials are refused', async () => {
    const client = clickhouseClient(
      { url: `http://default:wrong@127.0.0.1:${server.port}`, database: 'x' },
      { server: true },
    );
    const stop = new AbortController();
    const reasons: string[] = [];
    const waiting = waitForServer(client, {
      firstDelayMs: 20,
      signal: stop.signal,
      onWaiting: (reason) => {
        reasons.push(reason);
        if (reasons.length === 2) stop.abort();
      },
    });
    await expect(waiting).rejects.toThrow();
    expect(reasons[0]).toMatch(/AUTHENTICATION_FAILED \(code 516\)/);
    await client.close();
  });
});
