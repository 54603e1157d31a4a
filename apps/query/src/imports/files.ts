import { createReadStream } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type CsvError, parse } from 'csv-parse';
import yauzl from 'yauzl';

/** A file of an import that cannot be read as its format says; names the file and, when known, the line. */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? `${file}: ${reason}` : `${file}, line ${line}: ${reason}`);
    this.name = 'ImportFileError';
  }
}

/** One file of an export, opened when it is read: in a folder, or an entry of a zip. */
export interface CsvFile {
  name: string;
  open(): Promise<Readable>;
}

/** An export's files: a folder's, or a zip's entries (read from the disk as they are streamed). */
export interface ExportFiles {
  files: CsvFile[];
  close(): void;
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((done, fail) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false }, (error, zip) =>
      error ? fail(error) : done(zip),
    ),
  );
}

async function zipFiles(path: string, name: string): Promise<ExportFiles> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (error) {
    throw new ImportFileError(name, null, `not a zip file, or a truncated one (${(error as Error).message})`);
  }
  const entries: yauzl.Entry[] = await new Promise((done, fail) => {
    const found: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) found.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => done(found));
    zip.on('error', (error: Error) =>
      fail(new ImportFileError(name, null, `a damaged zip file (${error.message})`)),
    );
    zip.readEntry();
  });
  return {
    files: entries.map((entry) => ({
      name: entry.fileName,
      open: () =>
        new Promise<Readable>((done, fail) =>
          zip.openReadStream(entry, (error, stream) =>
            error
              ? fail(
                  new ImportFileError(entry.fileName, null, `cannot be read from the zip (${error.message})`),
                )
              : done(stream),
          ),
        ),
    })),
    close: () => zip.close(),
  };
}

/** The files of an export at `path`: a zip, or a folder of CSV files. */
export async function exportFiles(path: string, name = path): Promise<ExportFiles> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    throw new ImportFileError(name, null, 'no such file or folder');
  }
  if (!info.isDirectory()) return zipFiles(path, name);
  const names = (await readdir(path)).sort();
  return {
    files: names.map((n) => ({ name: n, open: async () => createReadStream(join(path, n)) })),
    close: () => undefined,
  };
}

/**
 * The records of a CSV file with a header row, each with its line number. Throws ImportFileError
 * for a header without a required column, or a record the parser cannot read (a stray quote, a
 * wrong number of fields), naming the line.
 */
export async function* readCsv(
  file: CsvFile,
  required: readonly string[],
): AsyncGenerator<{ record: Record<string, string>; line: number }> {
  let badHeader: ImportFileError | undefined;
  const columns = (header: string[]) => {
    const missing = required.filter((c) => !header.includes(c));
    if (missing.length === 0) return header;
    badHeader = new ImportFileError(file.name, 1, `the header has no ${missing.join(', ')} column`);
    throw badHeader;
  };
  const parser = (await file.open()).pipe(
    parse({ columns, bom: true, skip_empty_lines: true, info: true, trim: false }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield { record, line: info.lines };
    }
  } catch (error) {
    if (badHeader) throw badHeader;
    if (error instanceof ImportFileError) throw error;
    const csv = error as CsvError & { lines?: number };
    throw new ImportFileError(file.name, csv.lines ?? null, csv.message);
  } finally {
    parser.destroy();
  }
}

/** The site's local day (`YYYY-MM-DD`) of a moment: one formatter per import (one per row cost ~100 µs). */
export function dayFormat(timeZone: string): (ms: number) => string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  return (ms: number) => format.format(ms);
}

/**
 * Which days an import keeps (docs/imports.md): those before the site's first day of native data
 * (every day when it has none), unless `through` says how far to keep them.
 */
export const keepsDay =
  (o: { firstNativeDay: string | null; through?: string | undefined }) =>
  (day: string): boolean =>
    o.through !== undefined ? day <= o.through : o.firstNativeDay === null || day < o.firstNativeDay;

/** A new private folder under data/imports for one import's scratch files (removed by the caller). */
export async function scratchDir(root: string, prefix: string): Promise<string> {
  const dir = join(root, `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
