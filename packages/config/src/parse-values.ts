/**
 * Parsers for the value formats of FOOTFALL_* variables. Each returns the parsed value or a
 * string that says what is wrong (without echoing the value, since some values are secrets).
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (problem: string): Parsed<never> => ({ ok: false, problem });

/** Where a server listens: `:8080`, `127.0.0.1:8080`, `[::1]:8080` or `0.0.0.0:80`. */
export interface ListenAddress {
  /** undefined means every interface */
  host: string | undefined;
  port: number;
}

export function parseAddr(text: string): Parsed<ListenAddress> {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  if (!m) return bad('must look like ":8080", "127.0.0.1:8080" or "[::1]:8080"');
  const port = Number(m[3]);
  if (port < 0 || port > 65535) return bad('port must be between 0 and 65535');
  const host = m[1] ?? (m[2] === '' ? undefined : m[2]);
  return ok({ host, port });
}

export function formatAddr(addr: ListenAddress): string {
  if (addr.host === undefined) return `:${addr.port}`;
  return addr.host.includes(':') ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
}

export type TrustProxy =
  | { mode: 'auto' }
  | { mode: 'none' }
  | { mode: 'xff' }
  | { mode: 'header'; header: string };

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseTrustProxy(text: string): Parsed<TrustProxy> {
  const t = text.trim();
  if (t === 'auto' || t === 'none' || t === 'xff') return ok({ mode: t });
  if (t.startsWith('header:')) {
    const header = t.slice('header:'.length).trim();
    if (!HEADER_TOKEN.test(header)) return bad('header:<Name> needs a valid HTTP header name');
    return ok({ mode: 'header', header: header.toLowerCase() });
  }
  return bad('must be auto, none, xff or header:<Name>');
}

export function parseIntIn(text: string, min: number, max: number): Parsed<number> {
  if (!/^\d+$/.test(text.trim())) return bad(`must be a whole number between ${min} and ${max}`);
  const n = Number(text.trim());
  if (n < min || n > max) return bad(`must be a whole number between ${min} and ${max}`);
  return ok(n);
}

/** A number of seconds, fractions allowed (`30`, `0.5`), between `min` and `max`. */
export function parseSeconds(text: string, min: number, max: number): Parsed<number> {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+(?:\.\d+)?$/.test(t) || n < min || n > max) {
    return bad(`must be a number of seconds between ${min} and ${max}`);
  }
  return ok(n);
}

/** A DuckDB memory cap such as `256MB`, `1GB`, `512MiB`. */
export function parseMemory(text: string): Parsed<string> {
  const m = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.exec(text.trim());
  if (!m || Number(m[1]) <= 0) return bad('must be a size such as 256MB or 2GB');
  return ok(`${m[1]}${m[2]!.toUpperCase().replace('IB', 'iB')}`);
}

export function parseEnum<T extends string>(text: string, allowed: readonly T[]): Parsed<T> {
  const t = text.trim().toLowerCase();
  return (allowed as readonly string[]).includes(t)
    ? ok(t as T)
    : bad(`must be one of ${allowed.join(', ')}`);
}

export function parseOnOff(text: string): Parsed<boolean> {
  const t = text.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(t)) return ok(true);
  if (['off', 'false', '0', 'no'].includes(t)) return ok(false);
  return bad('must be on or off');
}

export function parseHttpUrl(text: string): Parsed<string> {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return bad('must be an absolute http:// or https:// URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return bad('must be an http:// or https:// URL');
  return ok(u.origin + u.pathname.replace(/\/+$/, ''));
}

/** Where the ClickHouse engine's server is: `http(s)://user:password@host:8123`. */
export function parseClickHouseUrl(text: string): Parsed<string> {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return bad('must look like http://user:password@host:8123 or https://user:password@host:8443');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return bad('must be an http:// or https:// URL');
  if (u.pathname !== '/' || u.search !== '' || u.hash !== '') {
    return bad(
      'must be the server address only, with no path or query (set the database with FOOTFALL_CLICKHOUSE_DATABASE)',
    );
  }
  return ok(u.toString().replace(/\/$/, ''));
}

/** A ClickHouse database or cluster name: letters, digits and underscores, not starting with a digit. */
export function parseIdentifier(text: string): Parsed<string> {
  const t = text.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(t)) {
    return bad('must be a name of letters, digits and underscores (at most 64), not starting with a digit');
  }
  return ok(t);
}

export interface SmtpSettings {
  secure: boolean;
  host: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
}

export function parseSmtpUrl(text: string): Parsed<SmtpSettings> {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return bad('must be smtp://user:password@host:587 or smtps://user:password@host:465');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') return bad('scheme must be smtp:// or smtps://');
  if (!u.hostname) return bad('needs a host');
  const secure = u.protocol === 'smtps:';
  return ok({
    secure,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  });
}

export interface S3Target {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  prefix: string;
  region: string;
}

export function parseS3Url(text: string): Parsed<S3Target> {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return bad('must be https://<KEY>:<SECRET>@<host>/<bucket>/<prefix>?region=<region>');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return bad('must be an https:// URL');
  if (!u.username || !u.password) return bad('needs the access key and secret before the host');
  const [bucket, ...rest] = u.pathname.split('/').filter(Boolean);
  if (!bucket) return bad('needs a bucket name in the path');
  return ok({
    endpoint: `${u.protocol}//${u.host}`,
    accessKeyId: decodeURIComponent(u.username),
    secretAccessKey: decodeURIComponent(u.password),
    bucket,
    prefix: rest.join('/'),
    region: u.searchParams.get('region') ?? 'us-east-1',
  });
}

/**
 * A host name as a site's domain is compared: lower case, without a trailing dot, and without a
 * leading `www.` while a domain remains after it, so `www.example.com` and `example.com` are one
 * site whichever form was registered and whichever one a page is on.
 *
 * @example
 * bareHost('WWW.Example.com.'); // 'example.com'
 * bareHost('www.com'); // 'www.com'
 */
export function bareHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.startsWith('www.') && host.indexOf('.', 4) > 0 ? host.slice(4) : host;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?:${LABEL}\\.)+${LABEL}$`);

/**
 * A site's domain from what was typed or pasted: a URL or a bare host, reduced to its host as
 * `bareHost` keys it (`https://www.Bücher.example/x` -> `xn--bcher-kva.example`).
 */
export function parseDomain(text: string): Parsed<string> {
  const t = text.trim();
  let host: string;
  try {
    host = new URL(t.includes('://') ? t : `http://${t}`).hostname;
  } catch {
    return bad('is not a domain');
  }
  host = bareHost(host);
  if (host === 'localhost' || DOMAIN.test(host)) return ok(host);
  return bad('is not a domain');
}

/**
 * FOOTFALL_UPDATE_CHECK: `off`, or the https:// address of a release list the owners' browsers may
 * read once a day (docs/configuration.md). There is no default list: this project runs no server
 * every installation would call.
 */
export function parseUpdateCheck(text: string): Parsed<string | undefined> {
  const t = text.trim();
  if (t.toLowerCase() === 'off') return ok(undefined);
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return bad('must be off, or the https:// address of a releases.json list (there is no default list)');
  }
  if (u.protocol !== 'https:') return bad('must be an https:// address, or off');
  if (u.username || u.password) return bad('must not carry credentials: the browser reads it as is');
  return ok(u.toString());
}
