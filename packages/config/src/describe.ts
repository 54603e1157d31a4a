import { type Config, NOT_YET_USED } from './config.ts';
import { formatAddr } from './parse-values.ts';

const MASK = '********';
const mask = (value: string | undefined) => (value === undefined ? '(not set)' : MASK);
const show = (value: string | number | boolean | undefined) =>
  value === undefined ? '(not set)' : String(value);

/** A server URL with its password masked. */
function maskPassword(url: string): string {
  const u = new URL(url);
  if (u.password !== '') u.password = MASK;
  return u.toString().replace(/\/$/, '');
}

/**
 * The effective configuration as `NAME=value` lines, secrets masked, for `footfall config`.
 *
 * @example
 * describeConfig(loadConfig(process.env)).join('\n')
 */
export function describeConfig(config: Config): string[] {
  const tp = config.trustProxy;
  const rows: [string, string][] = [
    ['FOOTFALL_DATA_DIR', config.dataDir],
    ['FOOTFALL_ADDR', formatAddr(config.addr)],
    ['FOOTFALL_BASE_URL', show(config.baseUrl)],
    ['FOOTFALL_SECRET', config.secret === undefined ? '(not set: data/secret.key is used)' : MASK],
    [
      'FOOTFALL_SMTP_URL',
      config.smtp
        ? `${config.smtp.secure ? 'smtps' : 'smtp'}://${config.smtp.user ? `${MASK}@` : ''}${config.smtp.host}:${config.smtp.port}`
        : '(not set)',
    ],
    ['FOOTFALL_MAIL_FROM', show(config.mailFrom)],
    [
      'FOOTFALL_BACKUP_S3',
      config.backupS3
        ? `${config.backupS3.endpoint}/${config.backupS3.bucket}/${config.backupS3.prefix} (keys ${MASK})`
        : '(not set)',
    ],
    ['FOOTFALL_BACKUP_KEEP_DAYS', show(config.backupKeepDays)],
    ['FOOTFALL_OPERATOR_TOKEN', mask(config.operatorToken)],
    ['FOOTFALL_SETUP_TOKEN', config.setupToken === undefined ? '(not set: generated)' : MASK],
    ['FOOTFALL_TRUST_PROXY', tp.mode === 'header' ? `header:${tp.header}` : tp.mode],
    ['FOOTFALL_GEO', config.geo],
    ['FOOTFALL_GEO_DIR', show(config.geoDir)],
    ['FOOTFALL_UPDATE_CHECK', config.updateCheck ?? 'off'],
    ['FOOTFALL_ENGINE', config.engine],
    ['FOOTFALL_CLICKHOUSE_URL', config.clickhouse ? maskPassword(config.clickhouse.url) : '(not set)'],
    ['FOOTFALL_CLICKHOUSE_DATABASE', show(config.clickhouse?.database)],
    ['FOOTFALL_CLICKHOUSE_CLUSTER', show(config.clickhouse?.cluster)],
    ['FOOTFALL_ENGINE_THREADS', show(config.engineThreads)],
    ['FOOTFALL_ENGINE_MEMORY', config.engineMemory],
    ['FOOTFALL_QUERY_TIMEOUT_SECONDS', show(config.queryTimeoutSeconds)],
    ['FOOTFALL_DRAIN_SECONDS', show(config.drainSeconds)],
    ['FOOTFALL_LOG_LEVEL', config.logLevel],
    ['FOOTFALL_SITES', config.sites.length ? config.sites.join(',') : '(not set)'],
    ['FOOTFALL_API_TOKEN', mask(config.apiToken)],
    ['FOOTFALL_METRICS_TOKEN', mask(config.metricsToken)],
    ['FOOTFALL_DISK_ALERT_DAYS', show(config.diskAlertDays)],
    [
      'FOOTFALL_RETENTION_DAYS',
      config.retentionDays === undefined ? '(not set: kept)' : String(config.retentionDays),
    ],
    ...oidcRows(config),
  ];
  if (config.unsafe.noRateLimit) rows.push(['FOOTFALL_UNSAFE_NO_RATE_LIMIT', 'on (never in production)']);
  if (config.unsafe.anyHost) rows.push(['FOOTFALL_UNSAFE_ANY_HOST', 'on (never in production)']);
  const apis = Object.keys(config.unsafe.paymentApis);
  if (apis.length > 0) {
    rows.push(['FOOTFALL_UNSAFE_PAYMENT_APIS', `${apis.join(', ')} replaced (never in production)`]);
  }
  if (config.unsafe.geoUrl)
    rows.push(['FOOTFALL_UNSAFE_GEO_URL', `${config.unsafe.geoUrl} (never in production)`]);
  if (config.unsafe.googleApi)
    rows.push(['FOOTFALL_UNSAFE_GOOGLE_API', `${config.unsafe.googleApi} (never in production)`]);
  if (config.unsafe.outboundAllow.length > 0)
    rows.push([
      'FOOTFALL_UNSAFE_OUTBOUND_ALLOW',
      `${config.unsafe.outboundAllow.join(',')} (never in production)`,
    ]);
  if (config.unsafe.siteOrigin)
    rows.push(['FOOTFALL_UNSAFE_SITE_ORIGIN', `${config.unsafe.siteOrigin} (never in production)`]);
  if (config.unsafe.migrationPauseMs !== 0)
    rows.push([
      'FOOTFALL_UNSAFE_MIGRATION_PAUSE_MS',
      `${config.unsafe.migrationPauseMs} (never in production)`,
    ]);
  if (config.unsafe.alertSeconds !== 60)
    rows.push(['FOOTFALL_UNSAFE_ALERT_SECONDS', `${config.unsafe.alertSeconds} (never in production)`]);
  if (config.platform) rows.push(['(hosting platform)', config.platform]);
  return rows.map(([k, val]) => `${k}=${val}${NOT_YET_USED.has(k) ? ' (not yet used)' : ''}`);
}

function oidcRows(config: Config): [string, string][] {
  const o = config.oidc;
  if (!o) return [['FOOTFALL_OIDC_ISSUER', '(not set: passwords only)']];
  return [
    ['FOOTFALL_OIDC_ISSUER', o.issuer],
    ['FOOTFALL_OIDC_CLIENT_ID', o.clientId],
    ['FOOTFALL_OIDC_CLIENT_SECRET', o.clientSecret === undefined ? '(not set: public client)' : MASK],
    ['FOOTFALL_OIDC_NAME', o.name],
    ['FOOTFALL_OIDC_DEFAULT_ROLE', o.defaultRole ?? 'off'],
    [
      'FOOTFALL_OIDC_DEFAULT_SITES',
      Array.isArray(o.defaultSites) ? o.defaultSites.join(',') : o.defaultSites,
    ],
    ['FOOTFALL_OIDC_SSO_ONLY', o.ssoOnly ? 'on' : 'off'],
    ['FOOTFALL_OIDC_BREAK_GLASS', show(o.breakGlass)],
  ];
}
