import { constants, existsSync, linkSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { listSegments, listWalStreams, MARK_FILE, nodeFs } from '@footfall/wal';
import Database from 'better-sqlite3';
import type { ArchiveEntry } from './archive.ts';

/**
 * Consistent copies of the instance's data into a staging directory, for one backup. The control
 * database is copied with SQLite's online backup (readers and writers go on); the analytics
 * database is checkpointed and copied while its single writer is held, and in that same moment the
 * write-ahead log it has not applied yet is linked, so the copy and the log continue each other
 * exactly: a restored instance loads the rest of the log and counts nothing twice.
 */

/** The analytics database's copy: where its stream positions stood and its schema. */
export interface AnalyticsCopy {
  /** per WAL stream, the last seq the copy holds */
  positions: Map<string, bigint>;
  /** null when there was no analytics database yet */
  schema: number | null;
}

/** Copies the control database (better-sqlite3 handle, or the path of a closed one) to `target`. */
export async function copyControl(source: Database.Database | string, target: string): Promise<number> {
  const db =
    typeof source === 'string' ? new Database(source, { readonly: true, fileMustExist: true }) : source;
  try {
    await db.backup(target);
    const copy = new Database(target, { readonly: true });
    try {
      return copy.pragma('user_version', { simple: true }) as number;
    } finally {
      copy.close();
    }
  } finally {
    if (typeof source === 'string') db.close();
  }
}

/** Copies a file, as a reflink where the file system has them, else byte for byte. */
export const copyWhole = (source: string, target: string) =>
  copyFile(source, target, constants.COPYFILE_FICLONE);

/**
 * The analytics database of a stopped service: opened here (DuckDB's lock keeps any other opener
 * out meanwhile), checkpointed, copied to `target`; then `during` runs with the positions, before
 * the database is let go.
 */
export async function copyAnalyticsOffline(
  path: string,
  target: string,
  during: (positions: Map<string, bigint>) => Promise<void>,
): Promise<AnalyticsCopy> {
  if (!existsSync(path)) {
    await during(new Map());
    return { positions: new Map(), schema: null };
  }
  const instance = await DuckDBInstance.create(path, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    await connection.run('CHECKPOINT');
    const positions = new Map<string, bigint>();
    const tables = await connection.runAndReadAll(
      "SELECT table_name FROM information_schema.tables WHERE table_name IN ('stream_positions', 'schema_version')",
    );
    const names = new Set(tables.getRowObjectsJS().map((r) => String(r['table_name'])));
    if (names.has('stream_positions')) {
      const rows = await connection.runAndReadAll('SELECT stream, seq FROM stream_positions');
      for (const row of rows.getRowObjectsJS())
        positions.set(String(row['stream']), BigInt(row['seq'] as bigint));
    }
    let schema: number | null = null;
    if (names.has('schema_version')) {
      const v = (
        await connection.runAndReadAll('SELECT max(version) AS v FROM schema_version')
      ).getRowObjectsJS();
      schema = v[0]?.['v'] === null || v[0]?.['v'] === undefined ? 0 : Number(v[0]['v']);
    }
    await copyWhole(path, target);
    await during(positions);
    return { positions, schema };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Links (or, across file systems, copies) into `stagingWal` the write-ahead log a copy of the
 * analytics database at `positions` still needs: per stream its durable mark and every segment
 * from the first one holding a record past the stream's position. Each segment is measured after
 * the mark was read, so every record the mark covers is inside the bytes taken; a record being
 * appended meanwhile is beyond the mark, and a restored writer cuts it as a torn tail.
 */
export async function linkWal(
  walRoot: string,
  stagingWal: string,
  positions: Map<string, bigint>,
): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  for (const stream of await listWalStreams(walRoot)) {
    const dir = join(walRoot, stream);
    const into = join(stagingWal, stream);
    mkdirSync(into, { recursive: true, mode: 0o700 });
    const mark = join(dir, MARK_FILE);
    if (existsSync(mark)) {
      await copyWhole(mark, join(into, MARK_FILE));
      entries.push({
        name: `wal/${stream}/${MARK_FILE}`,
        path: join(into, MARK_FILE),
        bytes: statSync(join(into, MARK_FILE)).size,
      });
    }
    const applied = positions.get(stream) ?? 0n;
    const segments = await listSegments(nodeFs, dir);
    let first = 0;
    while (first + 1 < segments.length && segments[first + 1]!.firstSeq - 1n <= applied) first++;
    for (const segment of segments.slice(first)) {
      const name = segment.path.slice(dir.length + 1);
      const staged = join(into, name);
      const bytes = statSync(segment.path).size;
      try {
        linkSync(segment.path, staged);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // pruned meanwhile: applied
        await copyWhole(segment.path, staged);
      }
      entries.push({ name: `wal/${stream}/${name}`, path: staged, bytes });
    }
  }
  return entries;
}

/** Every file under `dir` as archive entries named `<prefix>/<relative path>`. */
export function filesUnder(dir: string, prefix: string): ArchiveEntry[] {
  if (!existsSync(dir)) return [];
  const out: ArchiveEntry[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isFile()) out.push({ name: `${prefix}/${name}`, path, bytes: stat.size });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
