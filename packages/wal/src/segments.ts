import { join } from 'node:path';
import { errnoCode } from './errors.ts';
import { encodeSegmentHeader, parseSegmentName, segmentName } from './format.ts';
import {
  APPEND_FLAGS,
  FILE_MODE,
  fsyncDir,
  readAt,
  type WalFileHandle,
  type WalFs,
  writeFully,
} from './fs.ts';

/** A segment file of a stream, known by the first seq in its name. */
export interface SegmentRef {
  firstSeq: bigint;
  path: string;
}

const TEMP_SUFFIX = '.tmp';

/** The stream's segments, oldest first. A missing directory is an empty stream. */
export async function listSegments(fs: WalFs, dir: string): Promise<SegmentRef[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const segments: SegmentRef[] = [];
  for (const name of names) {
    const firstSeq = parseSegmentName(name);
    if (firstSeq !== null) segments.push({ firstSeq, path: join(dir, name) });
  }
  return segments.sort((a, b) => (a.firstSeq < b.firstSeq ? -1 : a.firstSeq > b.firstSeq ? 1 : 0));
}

/**
 * Creates a segment durably: header written and fsynced in a temporary file, renamed into place,
 * directory fsynced. A crash leaves either no segment or a complete header, never half a header.
 * Returns the new segment, opened for writing.
 */
export async function createSegment(
  fs: WalFs,
  dir: string,
  firstSeq: bigint,
): Promise<{ segment: SegmentRef; handle: WalFileHandle }> {
  const path = join(dir, segmentName(firstSeq));
  const temp = path + TEMP_SUFFIX;
  const handle = await fs.open(temp, 'w', FILE_MODE);
  try {
    await writeFully(handle, encodeSegmentHeader(firstSeq), 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, path);
  await fsyncDir(fs, dir);
  return { segment: { firstSeq, path }, handle: await fs.open(path, APPEND_FLAGS) };
}

/** Deletes temporary files a crash left behind while creating a segment. */
export async function removeTempFiles(fs: WalFs, dir: string): Promise<void> {
  for (const name of await fs.readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX)) await fs.unlink(join(dir, name));
  }
}

const CHUNK_BYTES = 256 * 1024;

/**
 * Buffered positional reads over one file, so scanning many small records costs a few large reads.
 * Bytes are cached only for the life of the window: callers make a new one whenever the file may
 * have been truncated and rewritten since.
 */
export class ByteWindow {
  private start = 0;
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(private readonly handle: WalFileHandle) {}

  /** `length` bytes at `position`, or fewer when the file ends first. */
  async get(position: number, length: number): Promise<Uint8Array> {
    const end = position + length;
    if (position >= this.start && end <= this.start + this.bytes.length) {
      return this.bytes.subarray(position - this.start, end - this.start);
    }
    this.bytes = await readAt(this.handle, position, Math.max(length, CHUNK_BYTES));
    this.start = position;
    return this.bytes.subarray(0, Math.min(length, this.bytes.length));
  }
}
