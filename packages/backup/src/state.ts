import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDir } from './archive.ts';

/** One outcome: when, and either what was written or why it failed. */
export interface Outcome {
  at: string;
  /** the backup file's name, or the object's key in the bucket */
  file?: string;
  bytes?: number;
  reason?: string;
}

/**
 * What Health shows about backups, kept in `backups/state.json` so it outlives a restart: the last
 * backup written and the last that failed, and the same for the off-site copy.
 */
export interface BackupState {
  last_success: Outcome | null;
  last_failure: Outcome | null;
  offsite: { last_success: Outcome | null; last_failure: Outcome | null };
}

export const emptyState = (): BackupState => ({
  last_success: null,
  last_failure: null,
  offsite: { last_success: null, last_failure: null },
});

const file = (dir: string) => join(dir, 'state.json');

export function readState(dir: string): BackupState {
  try {
    const s = JSON.parse(readFileSync(file(dir), 'utf8')) as Partial<BackupState>;
    return { ...emptyState(), ...s, offsite: { ...emptyState().offsite, ...s.offsite } };
  } catch {
    return emptyState();
  }
}

/** Writes the state whole (temp file, rename, fsync the directory). */
export function writeState(dir: string, state: BackupState): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file(dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file(dir));
  fsyncDir(dir);
}
