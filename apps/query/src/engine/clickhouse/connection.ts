import { type ClickHouseClient, ClickHouseError, ClickHouseLogLevel, createClient } from '@clickhouse/client';

/**
 * The connection of the ClickHouse engine (README.md in this folder): the official client over
 * HTTP, a server new enough, and waiting with backoff for one that cannot be reached yet.
 */

/**
 * The oldest ClickHouse release the engine runs on: 25.8. The long-term-support releases still
 * maintained in November 2026 are 26.3 and 26.8; 25.8 (one behind) still starts. What the engine
 * uses exists from 24.8 on (versioned collapsing, deduplication tokens on non-replicated tables,
 * typed query parameters, `DateTime64`, the codecs), and the 26.x default changes it depends on
 * (`async_insert`, the deduplication window) are pinned by explicit settings (DESIGN.md, section 5).
 */
export const MINIMUM_VERSION: readonly [number, number] = [25, 8];

export interface ClickHouseTarget {
  /** `http(s)://user:password@host:8123` */
  url: string;
  /** the database the engine's tables are in (created when missing) */
  database: string;
}

/** A server the engine must not run on: too old, or not ClickHouse. */
export class UnsupportedServerError extends Error {}

/**
 * The client for a target. Every value goes to the server as a query parameter (`{name:Type}` in
 * the SQL text, `query_params` beside it); nothing is written into SQL text. Requests time out
 * after `timeoutMs` (reports stop earlier by their own signal); gzip both ways.
 *
 * @example
 * const client = clickhouseClient({ url: 'http://default:@127.0.0.1:8123', database: 'footfall' });
 */
export function clickhouseClient(
  target: ClickHouseTarget,
  options: {
    timeoutMs?: number /** no database: the server itself (its version, CREATE DATABASE) */;
    server?: boolean;
  } = {},
): ClickHouseClient {
  const url = new URL(target.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsupportedServerError(
      `ClickHouse URL must start with http:// or https://, got ${url.protocol}`,
    );
  }
  const username = decodeURIComponent(url.username) || 'default';
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return createClient({
    url: url.toString().replace(/\/$/, ''),
    username,
    password,
    ...(options.server ? {} : { database: target.database }),
    application: 'footfall',
    request_timeout: options.timeoutMs ?? 60_000,
    max_open_connections: 8,
    compression: { request: true, response: true },
    log: { level: ClickHouseLogLevel.OFF },
    clickhouse_settings: {
      // 64-bit integers as JSON strings: exact, whatever the server's default
      output_format_json_quote_64bit_integers: 1,
    },
  });
}

/** `24.8.3.59` as [24, 8, 3, 59]. */
export function parseVersion(text: string): number[] {
  const parts = text.trim().split('.').map(Number);
  if (parts.length < 2 || parts.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new UnsupportedServerError(`the server's version "${text.trim()}" is not a ClickHouse version`);
  }
  return parts;
}

/** Throws UnsupportedServerError naming the minimum unless `version` is at least MINIMUM_VERSION. */
export function checkVersion(version: string): void {
  const [major = 0, minor = 0] = parseVersion(version);
  const [minMajor, minMinor] = MINIMUM_VERSION;
  if (major < minMajor || (major === minMajor && minor < minMinor)) {
    throw new UnsupportedServerError(
      `ClickHouse ${version.trim()} is too old: Footfall needs ClickHouse ${minMajor}.${minMinor} or newer (an LTS release)`,
    );
  }
}

/** Why the server cannot be used yet, in words for Health and the log. */
export function reasonOf(e: unknown): string {
  if (e instanceof ClickHouseError)
    return `ClickHouse answered ${e.type ?? 'an error'} (code ${e.code}): ${e.message}`;
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  return code ? `cannot reach ClickHouse (${code}): ${message}` : `cannot reach ClickHouse: ${message}`;
}

export interface WaitOptions {
  /** told each time the server could not be used, with the next try's delay */
  onWaiting?: (reason: string, attempt: number, delayMs: number) => void;
  signal?: AbortSignal;
  /** first delay between tries; doubles up to maxDelayMs */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Waits until the server answers (ask it through a `server` client: the database may not exist
 * yet), then checks that it is new enough; returns its version. An
 * unreachable server, or one that refuses the credentials, is tried again with exponential
 * backoff (1 s doubling to 30 s by default) until `signal` aborts; a server too old is refused at
 * once (UnsupportedServerError): trying again would not make it newer.
 */
export async function waitForServer(client: ClickHouseClient, options: WaitOptions = {}): Promise<string> {
  const first = options.firstDelayMs ?? 1000;
  const max = options.maxDelayMs ?? 30_000;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      const result = await client.query({
        query: 'SELECT version() AS version',
        format: 'JSONEachRow',
        ...(options.signal && { abort_signal: options.signal }),
      });
      const [row] = await result.json<{ version: string }>();
      if (row === undefined) throw new UnsupportedServerError('the server did not say its version');
      checkVersion(row.version);
      return row.version;
    } catch (e) {
      if (e instanceof UnsupportedServerError) throw e;
      options.signal?.throwIfAborted();
      const delay = Math.min(max, first * 2 ** (attempt - 1));
      options.onWaiting?.(reasonOf(e), attempt, delay);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        options.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
