import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * A batch's inserts on the local disk before any is sent (DESIGN.md, section 4): one file per
 * table and chunk, in the order they are sent, and a manifest written last. A batch whose store
 * was written is sent from here, again after a crash, byte for byte under the same tokens, so
 * ClickHouse keeps each block once. Recomputing it instead could differ (merges, later records).
 */

/** One insert: a table's rows (JSONEachRow) in a file, sent under its own deduplication token. */
export interface SpooledInsert {
  table: string;
  file: string;
  rows: number;
  token: string;
}

export interface Manifest {
  generation: number;
  inserts: SpooledInsert[];
}

/** Rows per insert at most: one block (a server splits inserts at max_insert_block_size, 1,048,449). */
const ROWS_PER_INSERT = 500_000;
const MANIFEST = 'manifest.json';

/** Writes a batch's inserts into `dir/<generation>/`. */
export class SpoolWriter {
  readonly dir: string;
  readonly #inserts: (SpooledInsert & { fd: number })[] = [];
  readonly #open = new Map<string, SpooledInsert & { fd: number }>();

  constructor(
    root: string,
    readonly generation: number,
    /** what makes this batch's tokens its own (the streams' ranges) */
    readonly tag: string,
  ) {
    this.dir = join(root, String(generation));
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
  }

  /** Adds rows to a table's current insert (a new one past ROWS_PER_INSERT, or after another table's). */
  write(table: string, lines: readonly string[]): void {
    if (lines.length === 0) return;
    let insert = this.#open.get(table);
    if (insert === undefined || insert.rows >= ROWS_PER_INSERT) {
      const n = this.#inserts.length;
      const file = `${String(n).padStart(3, '0')}-${table}.jsonl`;
      insert = {
        table,
        file,
        rows: 0,
        token: `ff|${this.generation}|${this.tag}|${n}|${table}`,
        fd: openSync(join(this.dir, file), 'w'),
      };
      this.#inserts.push(insert);
      this.#open.set(table, insert);
    }
    writeSync(insert.fd, `${lines.join('\n')}\n`);
    insert.rows += lines.length;
  }

  /** Makes the spool durable (files, manifest, directory) and returns its manifest. */
  finish(): Manifest {
    for (const insert of this.#inserts) {
      fsyncSync(insert.fd);
      closeSync(insert.fd);
    }
    const manifest: Manifest = {
      generation: this.generation,
      inserts: this.#inserts.map(({ table, file, rows, token }) => ({ table, file, rows, token })),
    };
    const tmp = join(this.dir, `${MANIFEST}.tmp`);
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify(manifest));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, MANIFEST));
    syncDir(this.dir);
    return manifest;
  }

  /** Closes and removes what was written (the batch is given up before anything was sent). */
  discard(): void {
    for (const insert of this.#inserts) {
      try {
        closeSync(insert.fd);
      } catch {
        // closed by finish
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The spooled batches under `root`: generation and manifest (null when it was never finished). */
export function spooledBatches(
  root: string,
): { generation: number; dir: string; manifest: Manifest | null }[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .map((name) => {
      const dir = join(root, name);
      const path = join(dir, MANIFEST);
      const manifest = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest) : null;
      return { generation: Number(name), dir, manifest };
    })
    .sort((a, b) => a.generation - b.generation);
}
