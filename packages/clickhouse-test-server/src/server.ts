/**
 * A TEST TOOL, never for production: the ClickHouse engine that the npm package `chdb` embeds
 * (ClickHouse 26.x) behind the part of ClickHouse's HTTP interface that `@clickhouse/client` uses,
 * so tests run Footfall's ClickHouse engine, through the official client over HTTP, on machines
 * where no current ClickHouse server can be installed (apps/query/src/engine/clickhouse/README.md).
 *
 * What it speaks (ClickHouse's docs/en/interfaces/http.md):
 * - `GET /ping` and `GET /`: `Ok.`
 * - a query as the `query` URL parameter, the POST body, or both (the body follows the parameter:
 *   an INSERT's data); `FORMAT` in the query text chooses the answer's format, else
 *   `default_format`, else TabSeparated
 * - `param_<name>`: server-side query parameters, parsed by ClickHouse as a real server does
 * - `database`, `query_id` (echoed in `X-ClickHouse-Query-Id`), and any other URL parameter as a
 *   setting of that query (`insert_deduplication_token`, `max_execution_time`, ...)
 * - user and password as Basic authorization, `X-ClickHouse-User` / `X-ClickHouse-Key` headers or
 *   `user` / `password` parameters: refused with code 516 unless they match the server's
 * - a gzip request body (`Content-Encoding: gzip`), and a gzip answer when the query sets
 *   `enable_http_compression=1` and the client accepts gzip
 * - errors as ClickHouse writes them: `Code: N. DB::Exception: ... (NAME)`, the code in
 *   `X-ClickHouse-Exception-Code`, and a 4xx/5xx status by kind
 * - cancellation: when the client goes away, a query still waiting is dropped and a running
 *   SELECT stops at its next block
 *
 * How it differs from a server: one engine per process, so queries run one at a time in arrival
 * order (a setting or parameter applies to its query only, set before it and reset after); no
 * sessions, no progress headers, no native protocol, no TLS.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Session } from 'chdb';

export interface TestServerOptions {
  /** the directory that holds the databases (created when missing) */
  path: string;
  port?: number;
  host?: string;
  user?: string;
  password?: string;
}

export interface TestServer {
  port: number;
  /** `http://user:password@host:port` */
  url: string;
  version: string;
  close(): Promise<void>;
}

/** URL parameters that are not settings of the query. */
const NOT_SETTINGS = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'enable_http_compression',
  'role',
]);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The HTTP status a real server answers an exception with, by the exception's name. */
function statusOf(name: string): number {
  if (/^(AUTHENTICATION_FAILED|REQUIRED_PASSWORD|WRONG_PASSWORD|UNKNOWN_USER)$/.test(name)) return 401;
  if (
    /^(SYNTAX_ERROR|BAD_ARGUMENTS|CANNOT_PARSE_|UNKNOWN_ELEMENT_IN_AST|TOO_DEEP_AST|TOO_BIG_AST)/.test(name)
  )
    return 400;
  if (
    /^UNKNOWN_(TABLE|DATABASE|FUNCTION|IDENTIFIER|TYPE|STORAGE|SETTING|FORMAT|AGGREGATE_FUNCTION)$/.test(name)
  )
    return 404;
  if (name === 'QUERY_WAS_CANCELLED') return 499;
  return 500;
}

class ClickHouseFailure extends Error {
  constructor(
    readonly code: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** A chdb error as ClickHouse's own text, code and name. */
function failureOf(e: unknown): ClickHouseFailure {
  if (e instanceof ClickHouseFailure) return e;
  const message = e instanceof Error ? e.message : String(e);
  const code =
    (e as { clickhouseCode?: number }).clickhouseCode ?? Number(/Code: (\d+)/.exec(message)?.[1] ?? 1001);
  const kind = /\(([A-Z0-9_]+)\)\s*(\(version [^)]*\))?\s*$/.exec(message)?.[1] ?? 'STD_EXCEPTION';
  const text = message.startsWith('Code:') ? message : `Code: ${code}. DB::Exception: ${message}. (${kind})`;
  return new ClickHouseFailure(code, kind, text);
}

/** A string literal of SQL holding `text` unchanged. */
const literal = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const STREAMABLE = /^\s*(\(\s*)*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;
/** Formats that are one file, not rows: chdb's stream gives each chunk as a file of its own. */
const WHOLE_FILE = /\bFORMAT\s+(Parquet|Arrow|ORC|Avro)\s*;?\s*$/i;

/**
 * Starts the server; resolves once it listens.
 *
 * @example
 * const server = await startTestServer({ path: '/tmp/ch', port: 0 });
 * const client = createClient({ url: server.url });
 */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const user = options.user ?? 'default';
  const password = options.password ?? '';
  const session = new Session(options.path);
  const version = (await session.queryAsync('SELECT version()', { format: 'TSV' })).text().trim();
  // a server's defaults where clickhouse-local's differ: 64-bit integers are strings in JSON
  await session.queryAsync('SET output_format_json_quote_64bit_integers = 1');
  let queue: Promise<void> = Promise.resolve();
  /** runs `work` after every query before it, alone */
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    let u = req.headers['x-clickhouse-user'] as string | undefined;
    let p = req.headers['x-clickhouse-key'] as string | undefined;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString();
      const colon = decoded.indexOf(':');
      u = decoded.slice(0, colon < 0 ? undefined : colon);
      p = colon < 0 ? '' : decoded.slice(colon + 1);
    }
    u ??= url.searchParams.get('user') ?? 'default';
    p ??= url.searchParams.get('password') ?? '';
    const same = (a: string, b: string) => {
      const x = Buffer.from(a);
      const y = Buffer.from(b);
      return x.length === y.length && timingSafeEqual(x, y);
    };
    return same(u, user) && same(p, password);
  };

  /** Runs one query with its settings, parameters and database; writes the answer to `res`. */
  const run = async (
    sql: string,
    url: URL,
    res: ServerResponse,
    gzip: boolean,
    gone: AbortSignal,
  ): Promise<void> => {
    const set: string[] = [];
    try {
      for (const [key, value] of url.searchParams) {
        if (key.startsWith('param_')) {
          if (!NAME.test(key)) throw new ClickHouseFailure(36, 'BAD_ARGUMENTS', `Bad parameter name ${key}`);
          await session.queryAsync(`SET ${key} = ${literal(value)}`);
        } else if (!NOT_SETTINGS.has(key)) {
          if (!NAME.test(key)) throw new ClickHouseFailure(115, 'UNKNOWN_SETTING', `Unknown setting ${key}`);
          await session.queryAsync(`SET ${key} = ${literal(value)}`);
          set.push(key);
        }
      }
      const database = url.searchParams.get('database') ?? 'default';
      if (!NAME.test(database))
        throw new ClickHouseFailure(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`);
      await session.queryAsync(`USE ${database}`);
      const format = url.searchParams.get('default_format') ?? 'TabSeparated';
      const headers: Record<string, string> = {
        'X-ClickHouse-Query-Id': url.searchParams.get('query_id') ?? randomUUID(),
        'X-ClickHouse-Timezone': 'UTC',
        'X-ClickHouse-Server-Display-Name': 'chdb',
      };
      if (gzip) headers['Content-Encoding'] = 'gzip';
      let body: Buffer;
      if (STREAMABLE.test(sql) && !WHOLE_FILE.test(sql)) {
        const chunks: Buffer[] = [];
        let rows = 0;
        for await (const chunk of session.queryStream(sql, { format, signal: gone })) {
          chunks.push(Buffer.from(chunk.raw()));
          rows += chunk.numRows;
        }
        body = Buffer.concat(chunks);
        headers['X-ClickHouse-Summary'] = JSON.stringify({
          read_rows: String(rows),
          result_rows: String(rows),
        });
      } else {
        const result = await session.queryAsync(sql, { format });
        body = Buffer.from(result.bytes());
        headers['X-ClickHouse-Summary'] = JSON.stringify({
          read_rows: String(result.rowsRead),
          read_bytes: String(result.bytesRead),
        });
      }
      res.writeHead(200, headers).end(gzip ? gzipSync(body) : body);
    } finally {
      for (const key of set) await session.queryAsync(`SET ${key} = DEFAULT`).catch(() => undefined);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const fail = (f: ClickHouseFailure) => {
      if (res.headersSent || res.destroyed) return;
      res
        .writeHead(statusOf(f.kind), {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Exception-Code': String(f.code),
        })
        .end(`${f.message} (version ${version})\n`);
    };
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body = Buffer.concat(chunks);
      if (/gzip/i.test(String(req.headers['content-encoding'] ?? ''))) body = gunzipSync(body);
      if (
        url.pathname === '/ping' ||
        (url.pathname === '/' && !url.searchParams.has('query') && body.length === 0)
      ) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (url.pathname !== '/') {
        res
          .writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' })
          .end(`There is no handle ${url.pathname}\n`);
        return;
      }
      if (!authorized(req, url)) {
        throw new ClickHouseFailure(
          516,
          'AUTHENTICATION_FAILED',
          'Code: 516. DB::Exception: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)',
        );
      }
      const param = url.searchParams.get('query');
      const sql = [param, body.length > 0 ? body.toString() : null].filter((s) => s !== null).join('\n');
      if (sql.trim() === '') throw new ClickHouseFailure(62, 'SYNTAX_ERROR', 'Empty query');
      const gzip =
        url.searchParams.get('enable_http_compression') === '1' &&
        /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      // the setting decides how the answer is encoded here; it is not the engine's
      await serial(async () => {
        if (gone.signal.aborted) return;
        await run(sql, url, res, gzip, gone.signal);
      });
    } catch (e) {
      fail(failureOf(e));
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8123, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const auth = `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;
  return {
    port,
    url: `http://${auth}${host.includes(':') ? `[${host}]` : host}:${port}`,
    version,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      session.close();
    },
  };
}
