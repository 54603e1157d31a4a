/**
 * `pnpm clickhouse:test-server --port <port> --path <dir> [--host 127.0.0.1] [--user default]
 * [--password ""]`: a test tool, never for production (server.ts). Prints `ready` once it answers,
 * and stops on SIGTERM or SIGINT.
 */
import { parseArgs } from 'node:util';
import { startTestServer } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8123' },
    path: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    user: { type: 'string', default: 'default' },
    password: { type: 'string', default: '' },
  },
});
const port = Number(values.port);
if (values.path === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    'usage: clickhouse-test-server --port <port> --path <dir> [--host h] [--user u] [--password p]',
  );
  process.exit(2);
}
const server = await startTestServer({
  path: values.path,
  port,
  host: values.host,
  user: values.user,
  password: values.password,
});
console.log(`ClickHouse ${server.version} (chdb, a test tool) on ${values.host}:${server.port}`);
console.log('ready');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
