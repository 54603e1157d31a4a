/**
 * @footfall/backup: sealed backups of an instance (archive.ts), how the databases are copied
 * (capture.ts), writing one (create.ts), the off-site copy (offsite.ts), the state Health shows
 * (state.ts) and restoring one (restore.ts). See docs/backups.md.
 */
export {
  BACKUP_FORMAT,
  BackupOpenError,
  type BackupReason,
  type Manifest,
  readManifest,
} from './archive.ts';
export { beforeUpgradeBackupName, pendingControlCopy, writeBeforeUpgradeBackup } from './before-upgrade.ts';
export { type AnalyticsCopy, copyAnalyticsOffline, copyControl, copyWhole } from './capture.ts';
export {
  BACKUP_FILE,
  type BackupResult,
  type BackupSources,
  backupName,
  type CreateBackupOptions,
  createBackup,
  localBackups,
  pruneLocal,
} from './create.ts';
export type { OffsiteResult } from './offsite.ts';
export { NotEmptyError, restoreBackup } from './restore.ts';
export { type BackupLog, type BackupRun, failureReason, LOCAL_KEEP, runBackup } from './run.ts';
export { type BackupState, emptyState, type Outcome, readState, writeState } from './state.ts';
