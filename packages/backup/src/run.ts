import { mkdirSync } from 'node:fs';
import { type Config, describeConfig } from '@footfall/config';
import type { Cipher } from '@footfall/control';
import { type DataPaths, footfallVersion } from '@footfall/instance';
import type { BackupReason } from './archive.ts';
import { type BackupResult, type BackupSources, createBackup, pruneLocal } from './create.ts';
import type { OffsiteResult } from './offsite.ts';
import { readState, writeState } from './state.ts';

/** Local backups kept in data/backups (the newest ones); older ones are removed after each. */
export const LOCAL_KEEP = 3;

/** One backup's answer: the file, and the off-site copy when FOOTFALL_BACKUP_S3 is set. */
export interface BackupRun extends BackupResult {
  offsite: OffsiteResult | { error: string } | null;
}

/** What a run logs: pino's shape. */
export interface BackupLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * One backup, as the daily job and `footfall backup now` run it: written to data/backups (the
 * newest LOCAL_KEEP kept), then copied to FOOTFALL_BACKUP_S3 when set; each outcome kept in
 * backups/state.json for Health. A failed backup throws after it is recorded; a failed off-site
 * copy is recorded and answered in `offsite.error` (the backup itself is good). Reasons name the
 * error and the bucket's host, never a key or a URL.
 */
export async function runBackup(o: {
  config: Config;
  paths: DataPaths;
  cipher: Cipher;
  reason: BackupReason;
  sources: BackupSources;
  log: BackupLog;
  now?: () => number;
  signal?: AbortSignal;
}): Promise<BackupRun> {
  const now = o.now ?? Date.now;
  const dir = o.paths.backups;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = () => new Date(now()).toISOString();
  let result: BackupResult;
  try {
    result = await createBackup({
      paths: o.paths,
      cipher: o.cipher,
      version: footfallVersion(),
      reason: o.reason,
      settings: describeConfig(o.config),
      now,
      sources: o.sources,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    pruneLocal(dir, LOCAL_KEEP);
  } catch (error) {
    const why = failureReason(error);
    writeState(dir, { ...readState(dir), last_failure: { at: at(), reason: why } });
    o.log.error({ reason: why }, 'backup failed');
    throw error;
  }
  const name = result.file.slice(dir.length + 1);
  writeState(dir, { ...readState(dir), last_success: { at: at(), file: name, bytes: result.bytes } });
  o.log.info({ file: name, bytes: result.bytes, reason: o.reason }, 'backup written');
  let offsite: BackupRun['offsite'] = null;
  const s3 = o.config.backupS3;
  if (s3) {
    const host = new URL(s3.endpoint).host;
    try {
      // the AWS SDK loads only when a copy is made: idle, it would hold about 10 MiB of the
      // query process (BENCHMARKS.md, footprint)
      const { copyOffsite } = await import('./offsite.ts');
      offsite = await copyOffsite(s3, result.file, o.config.backupKeepDays, now(), o.signal);
      const s = readState(dir);
      const success = { at: at(), file: offsite.key, bytes: result.bytes };
      writeState(dir, { ...s, offsite: { ...s.offsite, last_success: success } });
      o.log.info({ host, key: offsite.key, removed: offsite.removed.length }, 'backup copied off-site');
    } catch (error) {
      const why = `${failureReason(error)} (${host})`;
      const s = readState(dir);
      writeState(dir, { ...s, offsite: { ...s.offsite, last_failure: { at: at(), reason: why } } });
      o.log.error({ host, reason: why }, 'off-site copy of the backup failed');
      offsite = { error: why };
    }
  }
  return { ...result, offsite };
}

const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A failure's reason for Health and the log: the error's code or message, never a URL. */
export function failureReason(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { $metadata?: { httpStatusCode?: number } };
  if (e?.$metadata?.httpStatusCode !== undefined) {
    return `${e.name || 'S3 error'} (HTTP ${e.$metadata.httpStatusCode})`;
  }
  if (e?.code === 'ENOSPC') return 'the disk is full (ENOSPC)';
  // SQLite's own words for it, from the copy of app.db
  if (e?.code === 'SQLITE_FULL') return 'the disk is full (SQLITE_FULL)';
  if (e?.code !== undefined && NETWORK.has(e.code)) return `no answer from the bucket (${e.code})`;
  const message = e instanceof Error ? e.message : String(error);
  return message.replace(/https?:\/\/\S+/g, '<address>').slice(0, 300);
}
