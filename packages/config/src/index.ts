export {
  type Config,
  FILE_VARIABLES,
  type GeoMode,
  type LoadOptions,
  type LogLevel,
  loadConfig,
  NOT_YET_USED,
  type Platform,
  RETENTION_MAX_DAYS,
  RETENTION_MIN_DAYS,
  SECRET_VARIABLES,
  VARIABLES,
} from './config.ts';
export { describeConfig } from './describe.ts';
export { ConfigError } from './errors.ts';
export type { OidcSettings } from './oidc.ts';
export {
  bareHost,
  formatAddr,
  type ListenAddress,
  parseDomain,
  type S3Target,
  type SmtpSettings,
  type TrustProxy,
} from './parse-values.ts';
