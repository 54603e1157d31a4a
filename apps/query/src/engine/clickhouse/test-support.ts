import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { VisitorStore } from '../../visits/store.ts';
import { clickhouseClient } from './connection.ts';
import { ClickHouseLoader, type LoadStep } from './loader.ts';
import { migrateClickHouse } from './migrations.ts';

/** Test support: the chdb test server and fresh databases with a loader each. */
export interface ClickHouseHarness {
  dir: string;
  server: TestServer;
  /** a fresh, migrated database: its client, and a loader (again: reopened on the same store and spool) */
  database(step?: (s: LoadStep) => void): Promise<{
    client: ClickHouseClient;
    loader: ClickHouseLoader;
    reopen(step?: (s: LoadStep) => void): Promise<ClickHouseLoader>;
  }>;
  close(): Promise<void>;
}

let databases = 0;

export async function startHarness(): Promise<ClickHouseHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'ff-ch-'));
  const server = await startTestServer({ path: join(dir, 'ch'), port: 0 });
  const admin = clickhouseClient({ url: server.url, database: 'unused' }, { server: true });
  const clients: ClickHouseClient[] = [admin];
  return {
    dir,
    server,
    async database(step) {
      const database = `ff_t${process.pid}_${++databases}`;
      await migrateClickHouse(admin, database);
      const client = clickhouseClient({ url: server.url, database });
      clients.push(client);
      const own = join(dir, database);
      mkdirSync(own, { recursive: true });
      const reopen = async (stepAt?: (s: LoadStep) => void) => {
        const store = new VisitorStore(join(own, 'visitors.db'));
        const loader = new ClickHouseLoader({ client, store, dir: join(own, 'loading'), step: stepAt });
        await loader.open();
        return loader;
      };
      return { client, loader: await reopen(step), reopen };
    },
    async close() {
      for (const c of clients) await c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
