export {
  ALERT_DESTINATIONS_PER_SITE_MAX,
  ALERT_KINDS,
  ALERT_RETRY_DELAYS_MS,
  type AlertDelivery,
  type AlertDestination,
  type AlertKind,
  alertState,
  createAlertDestination,
  deleteAlertDestination,
  deliveriesOf,
  destinationSecrets,
  destinationsFor,
  dueDeliveries,
  enqueueAlert,
  getAlertDestination,
  instanceKeyMatches,
  listAlertDestinations,
  type NewAlertDestination,
  noteDestinationResult,
  recordAttempt,
  setAlertState,
  updateAlertDestination,
} from './alerts.ts';
export {
  ANNOTATION_TEXT_MAX,
  type Annotation,
  createAnnotation,
  deleteAnnotation,
  getAnnotation,
  listAnnotations,
  updateAnnotation,
} from './annotations.ts';
export {
  API_KEY_PREFIX,
  type ApiKeyInfo,
  createApiKey,
  listApiKeys,
  resolveApiKey,
  revokeApiKey,
} from './api-keys.ts';
export {
  analyticsBeforeUpgradeName,
  beforeUpgradeName,
  readBeforeUpgrade,
  writeAnalyticsBeforeUpgrade,
  writeBeforeUpgrade,
} from './before-upgrade.ts';
export {
  CONSENT_DEFAULTS,
  CONSENT_MIN_CONTRAST,
  CONSENT_TEXT_MAX,
  type ConsentBar,
  consentBarOf,
  contrastRatio,
} from './consent-bar.ts';
export { type Cipher, createCipher, SEAL_VERSION, SealError, type SealPurpose } from './crypto.ts';
export { replaceDurably } from './durable-file.ts';
export {
  createFunnel,
  deleteFunnel,
  FUNNEL_STEPS_MAX,
  FUNNEL_STEPS_MIN,
  FUNNELS_PER_SITE_MAX,
  type Funnel,
  type FunnelInput,
  type FunnelStep,
  getFunnel,
  listFunnels,
  updateFunnel,
} from './funnels.ts';
export {
  createGoal,
  deleteGoal,
  GOALS_PER_SITE_MAX,
  type Goal,
  type GoalInput,
  getGoal,
  listGoals,
  listGoalsNow,
  updateGoal,
} from './goals.ts';
export {
  clearStopped,
  faviconOf,
  faviconsFetched,
  type InstallCheck,
  type InstallOutcome,
  installCheckOf,
  installChecks,
  recordInstallCheck,
  storeFavicon,
} from './install-checks.ts';
export { CONTROL_MIGRATIONS, type ControlMigration } from './migrations.ts';
export {
  BeforeUpgradeError,
  type ControlDb,
  compareVersions,
  NewerDatabaseError,
  type OpenControlDbOptions,
  openControlDb,
} from './open.ts';
export { DUMMY_HASH, generatePassword, hashPassword, passwordProblem, verifyPassword } from './password.ts';
export {
  changeRole,
  createPerson,
  findPersonByEmail,
  getPerson,
  hasOwner,
  listPeople,
  normalizeEmail,
  type Person,
  type PersonRow,
  type Role,
  removePerson,
  setPassword,
  toPerson,
} from './people.ts';
export type { ControlSchema } from './schema.ts';
export { isSealedFile, sealFile, sealStream, unsealFile, unsealStream } from './sealed-file.ts';
export {
  type ActiveSession,
  CHALLENGE_TTL_MS,
  createChallenge,
  createSession,
  deleteSession,
  endChallenge,
  type NewSession,
  resolveSession,
  SESSION_TTL_MS,
  useChallenge,
} from './sessions.ts';
export { isSetupDoneAt } from './setup-state.ts';
export {
  createShare,
  deleteShare,
  getShare,
  issueShareCredential,
  listShares,
  resolveShareCredential,
  SHARE_CREDENTIAL_MS,
  SHARE_CREDENTIAL_PREFIX,
  SHARE_PASSWORD_MIN,
  SHARE_TOKEN_PREFIX,
  SHARES_PER_SITE_MAX,
  type Share,
  type ShareFields,
  shareByToken,
  sharePasswordMatches,
  updateShare,
} from './shares.ts';
export {
  listSiteAccess,
  type SiteScope,
  scopeAllows,
  setSiteAccess,
  siteScopeOf,
  type ViewerAccess,
} from './site-access.ts';
export { EMPTY_LAYOUT, getSiteLayout, type SiteLayout, saveSiteLayout } from './site-layout.ts';
export {
  canonicalTimeZone,
  createSite,
  deleteSite,
  ensureSites,
  finishSiteDeletions,
  getSite,
  listSites,
  MODULES,
  type ModuleName,
  normalizeCurrency,
  normalizeDomain,
  normalizeTimezone,
  type OnSiteDeleted,
  rotateProxyKey,
  SITE_DEFAULTS,
  type Site,
  type SiteFields,
  updateSite,
} from './sites.ts';
export { randomId, randomToken, safeEqual, sha256Hex } from './tokens.ts';
export {
  beginTwoStepSetup,
  confirmTwoStepSetup,
  disableTwoStep,
  recoveryCodesLeft,
  TWO_STEP_SETUP_TTL_MS,
  type TwoStepSetup,
  verifyTwoStepCode,
} from './two-step.ts';
