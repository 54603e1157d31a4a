/** Base class of every error this package throws on purpose, so callers can tell them from bugs. */
export class WalError extends Error {
  override name = 'WalError';
}

/**
 * Stored records are damaged: a bad record with valid records after it, a bad record that was
 * already durable, a missing or misnamed segment. Never skipped: an operator has to look.
 */
export class WalCorruptionError extends WalError {
  override name = 'WalCorruptionError';
  /** Path of the segment file holding the damage. */
  readonly segment: string;
  /** Byte offset of the damaged record (or of the gap) inside that segment. */
  readonly offset: number;

  constructor(segment: string, offset: number, reason: string) {
    super(`WAL corruption in ${segment} at byte offset ${offset}: ${reason}`);
    this.segment = segment;
    this.offset = offset;
  }
}

/**
 * A write, fsync or file creation failed. Sticky: the writer that raised it refuses every later
 * append with this same error until it is closed and opened again.
 */
export class WalWriteError extends WalError {
  override name = 'WalWriteError';
  /** The errno code from the operating system ('ENOSPC' when the disk is full, 'EIO', ...). */
  readonly code: string;

  constructor(operation: string, path: string, cause: unknown) {
    const code = errnoCode(cause) ?? 'EUNKNOWN';
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(
      `WAL ${operation} failed on ${path} (${code}): ${detail}; the writer refuses appends until reopened`,
      {
        cause,
      },
    );
    this.code = code;
  }

  /** True when the failure means the volume is out of space (or quota). */
  get diskFull(): boolean {
    return this.code === 'ENOSPC' || this.code === 'EDQUOT';
  }
}

/** Another live writer holds the stream's lock file. */
export class WalLockedError extends WalError {
  override name = 'WalLockedError';
  readonly lockFile: string;

  constructor(lockFile: string, holder: string) {
    super(`WAL stream is locked by another writer (${holder}); lock file ${lockFile}`);
    this.lockFile = lockFile;
  }
}

/** The writer or reader was closed. */
export class WalClosedError extends WalError {
  override name = 'WalClosedError';
}

/** The errno code of a Node.js system error, if it is one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
