import {
  closeSync,
  createReadStream,
  createWriteStream,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Cipher, sealStream, unsealStream } from '@footfall/control';
import tar from 'tar-stream';

/**
 * A backup file (`.ffbackup`): a tar archive sealed with the instance key in 8 MiB chunks
 * (FFSEALF1, packages/control/src/sealed-file.ts: AES-256-GCM per chunk, chunk order and the end
 * authenticated). Its first entry is `manifest.json`; the others are files of the data directory
 * under their paths there (`app.db`, `analytics.duckdb`, `wal/<stream>/...`, `quarantine/...`) and
 * `settings.txt`. Written and read as streams, so memory stays flat however large the data.
 */
export const BACKUP_FORMAT = 1;
export const MANIFEST = 'manifest.json';

export type BackupReason = 'daily' | 'manual' | 'before-upgrade';

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  /** the Footfall version that wrote it: a newer one is not restored by an older Footfall */
  footfall_version: string;
  created_at: string;
  reason: BackupReason;
  /** the control database's schema (SQLite user_version) in the copy */
  control_schema: number;
  /** the analytics database's schema in the copy; null when there was none */
  analytics_schema: number | null;
  /** every file after the manifest, in order, with its size */
  files: { name: string; bytes: number }[];
}

/** One file of the archive: its name in the archive, where its bytes are, how many to take. */
export interface ArchiveEntry {
  name: string;
  path: string;
  bytes: number;
}

/** A backup could not be opened: another key, damaged, not a backup, or from a newer Footfall. */
export class BackupOpenError extends Error {
  constructor(
    readonly reason: 'other-key' | 'damaged' | 'not-a-backup' | 'newer',
    message: string,
  ) {
    super(message);
    this.name = 'BackupOpenError';
  }
}

/**
 * Writes the sealed archive of `entries` to `target` durably (temp file, fsync, rename, fsync the
 * directory). Each entry's first `bytes` bytes are taken, so a file that grows meanwhile (the WAL
 * segment a gateway appends to) is cut where it was measured. Returns the file's size.
 */
export async function writeArchive(
  target: string,
  manifest: Omit<Manifest, 'files'>,
  entries: ArchiveEntry[],
  cipher: Cipher,
  signal?: AbortSignal,
): Promise<number> {
  const full: Manifest = { ...manifest, files: entries.map((e) => ({ name: e.name, bytes: e.bytes })) };
  const pack = tar.pack();
  const tmp = `${target}.${process.pid}.tmp`;
  let written = 0;
  const out = createWriteStream(tmp, { mode: 0o600 });
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      callback(null, chunk);
    },
  });
  const sealing = pipeline(pack, sealStream(cipher), counting, out, { signal });
  try {
    const feeding = (async () => {
      const json = Buffer.from(`${JSON.stringify(full, null, 2)}\n`);
      pack.entry({ name: MANIFEST, size: json.length, mode: 0o600 }, json);
      for (const e of entries) {
        if (e.bytes === 0) {
          pack.entry({ name: e.name, size: 0, mode: 0o600 }, Buffer.alloc(0));
          continue;
        }
        const entry = pack.entry({ name: e.name, size: e.bytes, mode: 0o600 });
        await pipeline(createReadStream(e.path, { start: 0, end: e.bytes - 1 }), entry, { signal });
      }
      pack.finalize();
    })();
    await Promise.all([
      feeding.catch((e: unknown) => {
        pack.destroy(e as Error);
        throw e;
      }),
      sealing,
    ]);
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    fsyncDir(dirname(target));
    return written;
  } catch (error) {
    out.destroy();
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * Opens the sealed archive at `source` into the directory `into` (which must exist): calls
 * `accept` with the manifest before any file is written (it throws to refuse), then writes each
 * file under its name. Throws BackupOpenError when the archive cannot be opened or is not whole;
 * what was written into `into` is then incomplete and the caller removes it.
 */
export async function readArchive(
  source: string,
  into: string,
  cipher: Cipher,
  accept: (manifest: Manifest) => void,
): Promise<Manifest> {
  const extract = tar.extract();
  let manifest: Manifest | undefined;
  const reading = pipeline(createReadStream(source), unsealStream(cipher), extract).catch(
    (error: unknown) => {
      throw openError(error);
    },
  );
  const unpacking = (async () => {
    let index = -1;
    for await (const entry of extract) {
      if (index === -1) {
        if (entry.header.name !== MANIFEST)
          throw new BackupOpenError('not-a-backup', 'the archive has no manifest');
        manifest = parseManifest(await readAll(entry));
        accept(manifest);
      } else {
        const expected = manifest?.files[index];
        if (
          expected === undefined ||
          expected.name !== entry.header.name ||
          expected.bytes !== entry.header.size
        ) {
          throw new BackupOpenError('damaged', `unexpected file ${entry.header.name} in the backup`);
        }
        const path = inside(into, expected.name);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        await pipeline(entry, createWriteStream(path, { mode: 0o600 }));
        const fd = openSync(path, 'r');
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      index++;
    }
    if (manifest === undefined) throw new BackupOpenError('not-a-backup', 'the archive is empty');
    if (index !== manifest.files.length)
      throw new BackupOpenError('damaged', 'the backup ends before its last file');
  })();
  await Promise.all([
    reading,
    unpacking.catch((e: unknown) => {
      extract.destroy(e as Error);
      throw e;
    }),
  ]);
  return manifest as Manifest;
}

/** Reads only the manifest of a backup (its first chunk): what `footfall backup list` shows. */
export async function readManifest(source: string, cipher: Cipher): Promise<Manifest> {
  const extract = tar.extract();
  const input = createReadStream(source);
  const reading = pipeline(input, unsealStream(cipher), extract).catch(() => undefined);
  try {
    for await (const entry of extract) {
      if (entry.header.name !== MANIFEST) break;
      return parseManifest(await readAll(entry));
    }
    throw new BackupOpenError('not-a-backup', 'the archive has no manifest');
  } catch (error) {
    throw openError(error);
  } finally {
    input.destroy();
    extract.destroy();
    await reading;
  }
}

function parseManifest(bytes: Buffer): Manifest {
  const m = JSON.parse(bytes.toString('utf8')) as Manifest;
  if (m.format !== BACKUP_FORMAT || !Array.isArray(m.files) || typeof m.footfall_version !== 'string') {
    throw new BackupOpenError('not-a-backup', `unknown backup format ${String(m.format)}`);
  }
  return m;
}

/** `name` under `dir`, refusing a name that would leave it or that is not a plain relative path. */
function inside(dir: string, name: string): string {
  const clean = normalize(name);
  if (clean.startsWith('..') || clean.startsWith(sep) || clean.includes(`${sep}..${sep}`) || clean === '.') {
    throw new BackupOpenError('damaged', `a file name in the backup leaves its directory: ${name}`);
  }
  return join(dir, clean);
}

function openError(error: unknown): Error {
  if (error instanceof BackupOpenError) return error;
  const reason = (error as { reason?: string }).reason;
  if (reason === 'other-key') {
    return new BackupOpenError(
      'other-key',
      'this backup was sealed with another instance key: set FOOTFALL_SECRET (or data/secret.key) to the key of the instance that made it',
    );
  }
  if (reason === 'unknown-version')
    return new BackupOpenError('not-a-backup', 'this file is not a Footfall backup');
  if (reason === 'damaged' || (error as Error).message?.includes('tar') || error instanceof SyntaxError) {
    return new BackupOpenError('damaged', `the backup is damaged: ${(error as Error).message}`);
  }
  return error as Error;
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function readAll(entry: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
