import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as v from 'valibot';
import { ConfigError } from './errors.ts';
import { type OidcSettings, oidcProblems, oidcSettings, parseIssuer, parseSiteChoice } from './oidc.ts';
import {
  type ListenAddress,
  type Parsed,
  parseAddr,
  parseClickHouseUrl,
  parseDomain,
  parseEnum,
  parseHttpUrl,
  parseIdentifier,
  parseIntIn,
  parseMemory,
  parseOnOff,
  parseS3Url,
  parseSeconds,
  parseSmtpUrl,
  parseTrustProxy,
  parseUpdateCheck,
  type S3Target,
  type SmtpSettings,
  type TrustProxy,
} from './parse-values.ts';

export type GeoMode = 'country' | 'city' | 'off';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The one typed configuration object, parsed once at start and passed to whatever needs it. */
export interface Config {
  dataDir: string;
  addr: ListenAddress;
  /** public base URL for setup and share links; undefined until set or detected */
  baseUrl: string | undefined;
  /** the hosting platform detected from its own variables (affects trust-proxy `auto`) */
  platform: Platform | undefined;
  secret: string | undefined;
  smtp: SmtpSettings | undefined;
  mailFrom: string | undefined;
  backupS3: S3Target | undefined;
  backupKeepDays: number;
  operatorToken: string | undefined;
  setupToken: string | undefined;
  trustProxy: TrustProxy;
  geo: GeoMode;
  geoDir: string | undefined;
  /** the release list owners' browsers may read (FOOTFALL_UPDATE_CHECK); undefined: off */
  updateCheck: string | undefined;
  /** where the ECB euro reference rates are downloaded from (a directory URL ending in /) */
  ratesUrl: string;
  /** which analytics engine stores and reads events: the embedded DuckDB, or a ClickHouse server */
  engine: 'duckdb' | 'clickhouse';
  /** the ClickHouse engine's server and database (set when engine is clickhouse) */
  clickhouse: { url: string; database: string; cluster: string | undefined } | undefined;
  engineThreads: number;
  engineMemory: string;
  /** seconds a report may run (waiting for a connection included) before it is stopped */
  queryTimeoutSeconds: number;
  drainSeconds: number;
  logLevel: LogLevel;
  sites: string[];
  apiToken: string | undefined;
  metricsToken: string | undefined;
  /** the disk alert fires when the data volume lasts fewer days than this */
  diskAlertDays: number;
  /** visits and events older than this many days are deleted daily; undefined keeps them all (a site may set its own) */
  retentionDays: number | undefined;
  /** single sign-on with an OpenID Connect provider (docs/sign-in.md); undefined: passwords only */
  oidc: OidcSettings | undefined;
  /** benchmark-only switches; never set in production */
  unsafe: {
    noRateLimit: boolean;
    anyHost: boolean;
    /** payment providers' API addresses replaced by local servers (tests): provider → base URL */
    paymentApis: Record<string, string>;
    /** where DB-IP Lite databases are downloaded from, instead of DB-IP (tests) */
    geoUrl: string | undefined;
    /** one local base for Google's token endpoint and Search Console API (tests) */
    googleApi: string | undefined;
    /** host:port pairs outgoing requests may reach although private (tests' local receivers) */
    outboundAllow: string[];
    /** the origin the install check reads instead of https://<site domain> (tests) */
    siteOrigin: string | undefined;
    /** seconds between two looks at the alert rules (60) */
    alertSeconds: number;
    /** the first migration of app.db in a start waits this long before it commits (tests kill it there) */
    migrationPauseMs: number;
  };
}

export type Platform = 'railway' | 'render' | 'fly' | 'heroku' | 'koyeb' | 'digitalocean';

/** Variables whose value may come from a file named by `<NAME>_FILE`. */
export const FILE_VARIABLES = [
  'FOOTFALL_SECRET',
  'FOOTFALL_API_TOKEN',
  'FOOTFALL_SETUP_TOKEN',
  'FOOTFALL_BACKUP_S3',
  'FOOTFALL_OPERATOR_TOKEN',
  'FOOTFALL_CLICKHOUSE_URL',
  'FOOTFALL_OIDC_CLIENT_SECRET',
] as const;

/**
 * Variables parsed and checked but not used by anything yet: their features are not built. The
 * docs mark them "not yet used" and `footfall config` says so; remove a name when its feature lands.
 */
export const NOT_YET_USED: ReadonlySet<string> = new Set<string>(['FOOTFALL_CLICKHOUSE_CLUSTER']);

/** Variables never printed: `footfall config` masks them, errors never quote them. */
export const SECRET_VARIABLES = new Set<string>([
  ...FILE_VARIABLES,
  'FOOTFALL_METRICS_TOKEN',
  'FOOTFALL_SMTP_URL',
]);

const from = <T>(parse: (text: string) => Parsed<T>) =>
  v.pipe(
    v.string(),
    v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
      const r = parse(dataset.value);
      if (r.ok) return r.value;
      addIssue({ message: r.problem });
      return NEVER;
    }),
  );

const token = (min: number) =>
  from((t) => {
    const s = t.trim();
    if (s.length < min) return { ok: false, problem: `must be at least ${min} characters` };
    if (/\s/.test(s)) return { ok: false, problem: 'must not contain spaces' };
    return { ok: true, value: s };
  });
const text = from((t) =>
  t.trim() ? { ok: true, value: t.trim() } : { ok: false, problem: 'must not be empty' },
);
const email = from((t) =>
  /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(t.trim().replace(/^.*<(.+)>$/, '$1'))
    ? { ok: true, value: t.trim() }
    : { ok: false, problem: 'must be an e-mail address such as alerts@example.com' },
);
const domainList = from((t) => {
  const out: string[] = [];
  for (const part of t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const d = parseDomain(part);
    if (!d.ok) return { ok: false, problem: `"${part}" ${d.problem}` };
    if (!out.includes(d.value)) out.push(d.value);
  }
  return { ok: true, value: out };
});

/** `host:port,host:port`: addresses a test's outgoing requests may reach although private. */
const hostPortList = from((t) => {
  const out: string[] = [];
  for (const part of t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(part);
    if (!m || Number(m[2]) > 65535) return { ok: false, problem: `"${part}" must be host:port` };
    out.push(`${m[1]}:${m[2]}`);
  }
  return { ok: true, value: out };
});

/** The payment providers whose API address a test may replace (packages/payments). */
/**
 * The shortest and longest visit retention (FOOTFALL_RETENTION_DAYS, a site's `retention_days`):
 * at least a month, so the default 30-day report and its comparison never lose visits mid-period.
 */
export const RETENTION_MIN_DAYS = 30;
export const RETENTION_MAX_DAYS = 36_500;

const PAYMENT_API_PROVIDERS = ['stripe', 'paddle', 'lemonsqueezy', 'polar', 'dodo'];
const paymentApis = from((t) => {
  const out: Record<string, string> = {};
  for (const part of t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [provider = '', url = ''] = part.split(/=(.*)/s);
    if (!PAYMENT_API_PROVIDERS.includes(provider.trim())) {
      return {
        ok: false,
        problem: `"${part}": the provider must be one of ${PAYMENT_API_PROVIDERS.join(', ')}`,
      };
    }
    const parsed = parseHttpUrl(url.trim());
    if (!parsed.ok) return { ok: false, problem: `"${part}": ${parsed.problem}` };
    out[provider.trim()] = parsed.value.replace(/\/+$/, '');
  }
  return { ok: true, value: out };
});

const EnvSchema = v.object({
  FOOTFALL_DATA_DIR: v.optional(text),
  FOOTFALL_ADDR: v.optional(from(parseAddr)),
  FOOTFALL_BASE_URL: v.optional(from(parseHttpUrl)),
  FOOTFALL_SECRET: v.optional(token(16)),
  FOOTFALL_SMTP_URL: v.optional(from(parseSmtpUrl)),
  FOOTFALL_MAIL_FROM: v.optional(email),
  FOOTFALL_BACKUP_S3: v.optional(from(parseS3Url)),
  FOOTFALL_BACKUP_KEEP_DAYS: v.optional(
    from((t) => parseIntIn(t, 1, 3650)),
    '30',
  ),
  FOOTFALL_OPERATOR_TOKEN: v.optional(token(16)),
  FOOTFALL_SETUP_TOKEN: v.optional(token(16)),
  FOOTFALL_TRUST_PROXY: v.optional(from(parseTrustProxy), 'auto'),
  FOOTFALL_GEO: v.optional(
    from((t) => parseEnum(t, ['country', 'city', 'off'] as const)),
    'country',
  ),
  FOOTFALL_GEO_DIR: v.optional(text),
  FOOTFALL_UPDATE_CHECK: v.optional(from(parseUpdateCheck)),
  FOOTFALL_RATES_URL: v.optional(from(parseHttpUrl), 'https://www.ecb.europa.eu/stats/eurofxref/'),
  FOOTFALL_ENGINE: v.optional(
    from((t) => parseEnum(t, ['duckdb', 'clickhouse'] as const)),
    'duckdb',
  ),
  FOOTFALL_CLICKHOUSE_URL: v.optional(from(parseClickHouseUrl)),
  FOOTFALL_CLICKHOUSE_DATABASE: v.optional(from(parseIdentifier), 'footfall'),
  FOOTFALL_CLICKHOUSE_CLUSTER: v.optional(from(parseIdentifier)),
  FOOTFALL_ENGINE_THREADS: v.optional(
    from((t) => parseIntIn(t, 1, 256)),
    '2',
  ),
  FOOTFALL_ENGINE_MEMORY: v.optional(from(parseMemory), '256MB'),
  FOOTFALL_QUERY_TIMEOUT_SECONDS: v.optional(
    from((t) => parseSeconds(t, 0.1, 600)),
    '30',
  ),
  FOOTFALL_DRAIN_SECONDS: v.optional(
    from((t) => parseIntIn(t, 0, 3600)),
    '25',
  ),
  FOOTFALL_LOG_LEVEL: v.optional(
    from((t) => parseEnum(t, ['debug', 'info', 'warn', 'error'] as const)),
    'info',
  ),
  FOOTFALL_SITES: v.optional(domainList),
  FOOTFALL_API_TOKEN: v.optional(token(16)),
  FOOTFALL_METRICS_TOKEN: v.optional(token(16)),
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: v.optional(from(parseOnOff), 'off'),
  FOOTFALL_UNSAFE_ANY_HOST: v.optional(from(parseOnOff), 'off'),
  FOOTFALL_UNSAFE_PAYMENT_APIS: v.optional(paymentApis),
  FOOTFALL_UNSAFE_GEO_URL: v.optional(from(parseHttpUrl)),
  FOOTFALL_UNSAFE_GOOGLE_API: v.optional(from(parseHttpUrl)),
  FOOTFALL_UNSAFE_OUTBOUND_ALLOW: v.optional(hostPortList),
  FOOTFALL_UNSAFE_SITE_ORIGIN: v.optional(from(parseHttpUrl)),
  FOOTFALL_UNSAFE_ALERT_SECONDS: v.optional(
    from((t) => parseIntIn(t, 1, 3600)),
    '60',
  ),
  FOOTFALL_UNSAFE_MIGRATION_PAUSE_MS: v.optional(
    from((t) => parseIntIn(t, 0, 60_000)),
    '0',
  ),
  FOOTFALL_DISK_ALERT_DAYS: v.optional(
    from((t) => parseIntIn(t, 1, 100_000_000)),
    '14',
  ),
  FOOTFALL_RETENTION_DAYS: v.optional(from((t) => parseIntIn(t, RETENTION_MIN_DAYS, RETENTION_MAX_DAYS))),
  FOOTFALL_OIDC_ISSUER: v.optional(from(parseIssuer)),
  FOOTFALL_OIDC_CLIENT_ID: v.optional(text),
  FOOTFALL_OIDC_CLIENT_SECRET: v.optional(text),
  FOOTFALL_OIDC_NAME: v.optional(
    from((t) =>
      t.trim() && t.trim().length <= 40
        ? { ok: true, value: t.trim() }
        : { ok: false, problem: 'must be 1 to 40 characters' },
    ),
  ),
  FOOTFALL_OIDC_DEFAULT_ROLE: v.optional(
    from((t) => parseEnum(t, ['off', 'viewer', 'owner'] as const)),
    'off',
  ),
  FOOTFALL_OIDC_DEFAULT_SITES: v.optional(from(parseSiteChoice), 'all'),
  FOOTFALL_OIDC_SSO_ONLY: v.optional(from(parseOnOff), 'off'),
  FOOTFALL_OIDC_BREAK_GLASS: v.optional(email),
});

/** Every variable Footfall reads (for `footfall config` and the docs test). */
export const VARIABLES = Object.keys(EnvSchema.entries) as (keyof typeof EnvSchema.entries)[];

export interface LoadOptions {
  /** reads a `_FILE` secret; defaults to reading the file as UTF-8 */
  readFile?: (path: string) => string;
  /** `/data` in the containers, `./data` otherwise */
  defaultDataDir?: string;
}

/**
 * Parses and validates the environment once. Throws a ConfigError naming every bad variable;
 * secret values are never part of a message.
 */
export function loadConfig(env: Record<string, string | undefined>, options: LoadOptions = {}): Config {
  const readFile = options.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const problems: string[] = [];
  const input: Record<string, string> = {};
  for (const name of VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (input[name] !== undefined) {
      problems.push(`${name}_FILE: cannot be set together with ${name}`);
      continue;
    }
    try {
      input[name] = readFile(file).replace(/\r?\n$/, '');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${name}_FILE: cannot read ${file} (${code})`);
    }
  }
  if (input.FOOTFALL_ADDR === undefined && env.PORT) input.FOOTFALL_ADDR = `:${env.PORT}`;

  const parsed = v.safeParse(EnvSchema, input);
  if (!parsed.success) {
    for (const issue of parsed.issues) {
      const key = String(issue.path?.[0]?.key ?? 'environment');
      const name = key === 'FOOTFALL_ADDR' && !env.FOOTFALL_ADDR && env.PORT ? 'PORT' : key;
      problems.push(`${name}: ${issue.message}`);
    }
  }
  if (
    parsed.success &&
    parsed.output.FOOTFALL_ENGINE === 'clickhouse' &&
    !parsed.output.FOOTFALL_CLICKHOUSE_URL
  ) {
    problems.push(
      'FOOTFALL_CLICKHOUSE_URL: must be set when FOOTFALL_ENGINE is clickhouse (http://user:password@host:8123)',
    );
  }
  const platform = detectPlatform(env);
  if (parsed.success) problems.push(...oidcProblems(parsed.output, input, platformBaseUrl(env, platform)));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const o = parsed.output;

  return {
    dataDir: resolve(o.FOOTFALL_DATA_DIR ?? options.defaultDataDir ?? './data'),
    addr: o.FOOTFALL_ADDR ?? { host: undefined, port: 8080 },
    baseUrl: o.FOOTFALL_BASE_URL ?? platformBaseUrl(env, platform),
    platform,
    secret: o.FOOTFALL_SECRET,
    smtp: o.FOOTFALL_SMTP_URL,
    mailFrom:
      o.FOOTFALL_MAIL_FROM ??
      defaultSender(o.FOOTFALL_SMTP_URL, o.FOOTFALL_BASE_URL ?? platformBaseUrl(env, platform)),
    backupS3: o.FOOTFALL_BACKUP_S3,
    backupKeepDays: o.FOOTFALL_BACKUP_KEEP_DAYS,
    operatorToken: o.FOOTFALL_OPERATOR_TOKEN,
    setupToken: o.FOOTFALL_SETUP_TOKEN,
    trustProxy: o.FOOTFALL_TRUST_PROXY,
    geo: o.FOOTFALL_GEO,
    geoDir: o.FOOTFALL_GEO_DIR === undefined ? undefined : resolve(o.FOOTFALL_GEO_DIR),
    updateCheck: o.FOOTFALL_UPDATE_CHECK,
    ratesUrl: o.FOOTFALL_RATES_URL.endsWith('/') ? o.FOOTFALL_RATES_URL : `${o.FOOTFALL_RATES_URL}/`,
    engine: o.FOOTFALL_ENGINE,
    clickhouse:
      o.FOOTFALL_ENGINE === 'clickhouse' && o.FOOTFALL_CLICKHOUSE_URL
        ? {
            url: o.FOOTFALL_CLICKHOUSE_URL,
            database: o.FOOTFALL_CLICKHOUSE_DATABASE,
            cluster: o.FOOTFALL_CLICKHOUSE_CLUSTER,
          }
        : undefined,
    engineThreads: o.FOOTFALL_ENGINE_THREADS,
    engineMemory: o.FOOTFALL_ENGINE_MEMORY,
    queryTimeoutSeconds: o.FOOTFALL_QUERY_TIMEOUT_SECONDS,
    drainSeconds: o.FOOTFALL_DRAIN_SECONDS,
    logLevel: o.FOOTFALL_LOG_LEVEL,
    sites: o.FOOTFALL_SITES ?? [],
    apiToken: o.FOOTFALL_API_TOKEN,
    metricsToken: o.FOOTFALL_METRICS_TOKEN,
    diskAlertDays: o.FOOTFALL_DISK_ALERT_DAYS,
    retentionDays: o.FOOTFALL_RETENTION_DAYS,
    oidc: oidcSettings(o),
    unsafe: {
      noRateLimit: o.FOOTFALL_UNSAFE_NO_RATE_LIMIT,
      anyHost: o.FOOTFALL_UNSAFE_ANY_HOST,
      paymentApis: o.FOOTFALL_UNSAFE_PAYMENT_APIS ?? {},
      geoUrl: o.FOOTFALL_UNSAFE_GEO_URL?.replace(/\/+$/, ''),
      googleApi: o.FOOTFALL_UNSAFE_GOOGLE_API?.replace(/\/+$/, ''),
      outboundAllow: o.FOOTFALL_UNSAFE_OUTBOUND_ALLOW ?? [],
      siteOrigin: o.FOOTFALL_UNSAFE_SITE_ORIGIN?.replace(/\/+$/, ''),
      alertSeconds: o.FOOTFALL_UNSAFE_ALERT_SECONDS,
      migrationPauseMs: o.FOOTFALL_UNSAFE_MIGRATION_PAUSE_MS,
    },
  };
}

function detectPlatform(env: Record<string, string | undefined>): Platform | undefined {
  if (env.RAILWAY_ENVIRONMENT || env.RAILWAY_PUBLIC_DOMAIN) return 'railway';
  if (env.RENDER || env.RENDER_EXTERNAL_URL) return 'render';
  if (env.FLY_APP_NAME) return 'fly';
  if (env.DYNO) return 'heroku';
  if (env.KOYEB_APP_NAME) return 'koyeb';
  if (env.APP_URL && env.APP_DOMAIN) return 'digitalocean';
  return undefined;
}

function platformBaseUrl(env: Record<string, string | undefined>, platform: Platform | undefined) {
  switch (platform) {
    case 'railway':
      return env.RAILWAY_PUBLIC_DOMAIN ? `https://${env.RAILWAY_PUBLIC_DOMAIN}` : undefined;
    case 'render':
      return env.RENDER_EXTERNAL_URL?.replace(/\/+$/, '');
    case 'fly':
      return `https://${env.FLY_APP_NAME}.fly.dev`;
    case 'digitalocean':
      return env.APP_URL?.replace(/\/+$/, '');
    default:
      return undefined;
  }
}

/**
 * The sender of alert e-mails when FOOTFALL_MAIL_FROM is not set (docs/configuration.md): the SMTP
 * user when it is an e-mail address (most providers take only their own addresses), else
 * `footfall@` the host of FOOTFALL_BASE_URL, else `footfall@` the SMTP server's host; none without
 * FOOTFALL_SMTP_URL.
 */
export function defaultSender(
  smtp: SmtpSettings | undefined,
  baseUrl: string | undefined,
): string | undefined {
  if (smtp === undefined) return undefined;
  if (smtp.user !== undefined && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(smtp.user))
    return `Footfall <${smtp.user}>`;
  const host = baseUrl === undefined ? smtp.host : new URL(baseUrl).hostname;
  return `Footfall <footfall@${host}>`;
}
